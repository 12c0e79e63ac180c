import sys, glob
d = sys.argv[1]
f = glob.glob(d + '/out/on-spindle/assets/browser-*.js')
f = [x for x in f if 'async function loadProgram' in open(x).read()][0]
s = open(f).read()
def rep(a, b):
    global s
    if s.count(a) != 1: print("skip", a[:50].strip()); return
    s = s.replace(a, b)
s = 'const __t0 = performance.now(); const __ph = (l) => console.log(`PH ${l} ${(performance.now() - (globalThis.__tl ?? __t0)).toFixed(0)}`, (globalThis.__tl = performance.now(), ""));\n' + s
rep('\tconst guard = bytes && summary.all.some(isThreadSpawn) ? rewrite(bytes) : void 0;\n\treturn withGuards(check(given ?? await compile(guard?.bytes ?? bytes, name), name, summary, known, memory, kind), guard, kind);',
    '\t__ph("lp"); const guard = bytes && summary.all.some(isThreadSpawn) ? rewrite(bytes) : void 0;\n\t__ph("guard"); const __c = given ?? await compile(guard?.bytes ?? bytes, name); __ph("compile"); return withGuards(check(__c, name, summary, known, memory, kind), guard, kind);')
s = s.replace("\tlet source = await input;", "\t__ph(\"inst0\"); let source = await input;", 1)
rep('\tconst loaded = await loadProgram(await readModuleSource(source, np.platform.readFile), isNapiImport, void 0, "reactor", np.guardRewrite);\n\tconst mounts',
    '\tconst __rs = await readModuleSource(source, np.platform.readFile); __ph("read"); const loaded = await loadProgram(__rs, isNapiImport, void 0, "reactor", np.guardRewrite);\n\tconst mounts')
s = s.replace('\tconst session = new NapiSession(np, loaded, options, host', '\t__ph("memfs"); const session = new NapiSession(np, loaded, options, host', 1)
rep('\t\tthis.started(source);\n\t\tawait this.program.poolBooted();\n\t\treturn source;', '\t\t__ph("instantiated"); this.started(source);\n\t\tawait this.program.poolBooted(); __ph("booted");\n\t\treturn source;')
s = s.replace('\tconst read = await readModuleSource(source, np.platform.readFile);', '\tconst read = await readModuleSource(source, np.platform.readFile); __ph("read");', 1)
open(f, 'w').write(s)
print(f)
