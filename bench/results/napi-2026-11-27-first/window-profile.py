import json,sys,collections,os,re
# winagg.py DIR...: each DIR has prof files and trace.txt; aggregate window [load-end,bundle-end 0] self time per thread role: main (.0.001.), bundle thread (most WASM in window), others
roles=collections.defaultdict(collections.Counter); n=0
for d in sys.argv[2:]:
    hr={}
    for l in open(os.path.join(d,'trace.txt')):
        m=re.search(r'main (\S+) ?(\S*) hr=(\d+)',l)
        if m: hr[(m.group(1)+' '+m.group(2)).strip()]=int(m.group(3))
    a,b=hr['load-end'],hr['bundle-end 0']
    per=[]
    for f in os.listdir(d):
        if not f.endswith('.cpuprofile'): continue
        p=json.load(open(os.path.join(d,f))); nodes={x['id']:x for x in p['nodes']}
        t=p['startTime']; self=collections.Counter()
        for s,dt in zip(p['samples'],p['timeDeltas']):
            t+=dt
            if a<=t<=b:
                cf=nodes[s]['callFrame']; fn=cf['functionName'] or '(anon)'
                key='WASM' if fn.startswith('wasm-function') else fn+' '+cf['url'].split('/')[-1]+':'+str(cf['lineNumber'])
                self[key]+=dt/1000
        per.append((f,self))
    n+=1
    main=[s for f,s in per if '.0.001.' in f][0]
    others=[s for f,s in per if '.0.001.' not in f]
    bt=max(others,key=lambda s:s['WASM'])
    roles['main'].update(main); roles['bundle'].update(bt)
sel=sys.argv[1]
r=roles[sel]; tot=sum(r.values())
print(f"{sel}: {tot/n:.1f} ms/run in window (runs {n})")
for k,v in r.most_common(45): print(f"  {v/n:6.1f} {k}")
