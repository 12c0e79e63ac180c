#!/usr/bin/env node
// Checks the module layering of the Rust crates against the table each crate writes in its
// src/lib.rs, under a `# Layers` heading, in the first ```text block after it:
//
//   fd_calls path_calls poll api   entry points ...      <- highest line
//   state                          the process's Fs ...
//   errno fds host mem spin        leaves ...            <- lowest line
//
// A line lists module names (separated by single spaces), then two or more spaces and a
// description. Rule: a module uses (`crate::m` or `$crate::m`, outside comments and outside its
// `#[cfg(test)] mod tests`) only modules on LOWER lines. Modules joined by `+` (`dir+inode`)
// are one unit that may use each other (say why in the crate). Every module file of src/ must
// be in the table and every name in the table must be a module. lib.rs is the root, unchecked.
// A crate without a table is listed as unchecked (crates of one file need none).
//
// Usage: node tools/check-crate-layers.mjs [CRATE_DIR...]   (default: every crates/*/)
// Exit 1 on a broken rule, with file:line and what to change.
import fs from 'node:fs';
import path from 'node:path';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The layer table of `lib`: Map module -> { line, unit } (line 0 = highest), or null. */
function readTable(lib) {
  const text = fs.readFileSync(lib, 'utf8').split('\n');
  const head = text.findIndex((l) => /^\/\/!\s*#+\s*Layers\s*$/.test(l));
  if (head < 0) return null;
  const open = text.findIndex((l, i) => i > head && /^\/\/!\s*```text\s*$/.test(l));
  if (open < 0) throw new Error(`${lib}: '# Layers' has no \`\`\`text table after it`);
  const table = new Map();
  let line = 0;
  for (let i = open + 1; i < text.length; i++) {
    const body = text[i].replace(/^\/\/! ?/, '');
    if (/^```/.test(body)) return table;
    const names = body.split(/\s{2,}/)[0].trim();
    if (!names) continue;
    for (const unit of names.split(' ')) {
      for (const m of unit.split('+')) {
        if (!/^[a-z_][a-z0-9_]*$/.test(m)) throw new Error(`${lib}:${i + 1}: '${m}' is not a module name`);
        if (table.has(m)) throw new Error(`${lib}:${i + 1}: '${m}' is listed twice`);
        table.set(m, { line, unit });
      }
    }
    line++;
  }
  throw new Error(`${lib}: the layer table is not closed with \`\`\``);
}

/** Every .rs file under src/ but lib.rs, with the top-level module it belongs to. */
function moduleFiles(src) {
  const out = [];
  const walk = (dir, top) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p, top ?? e.name);
      else if (e.name.endsWith('.rs') && !(top === undefined && e.name === 'lib.rs')) {
        out.push({ file: p, module: top ?? e.name.slice(0, -3) });
      }
    }
  };
  walk(src, undefined);
  return out;
}

/** (line number, used module) for every crate path in `file`'s code, tests excluded. */
function uses(file) {
  const out = [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (/^\s*#\[cfg\(test\)\]/.test(lines[i]) && /^\s*mod tests\b/.test(lines[i + 1] ?? '')) break;
    const code = lines[i].replace(/\/\/.*$/, '').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const m of code.matchAll(/\$?\bcrate::(\{[^}]*\}|[a-z_][a-z0-9_]*)/g)) {
      const names = m[1].startsWith('{')
        ? m[1].slice(1, -1).split(',').map((s) => s.trim().split('::')[0]).filter(Boolean)
        : [m[1]];
      for (const n of names) out.push({ line: i + 1, used: n });
    }
  }
  return out;
}

function checkCrate(dir) {
  const lib = path.join(dir, 'src', 'lib.rs');
  if (!fs.existsSync(lib)) return { checked: false };
  const table = readTable(lib);
  const files = moduleFiles(path.join(dir, 'src'));
  if (!table) return { checked: false, modules: new Set(files.map((f) => f.module)).size };
  const errors = [];
  const rel = (p) => path.relative(repo, p);
  const modules = new Set(files.map((f) => f.module));
  for (const m of modules) {
    if (!table.has(m)) errors.push(`${rel(lib)}: module '${m}' is missing from the layer table: add it to its line`);
  }
  for (const m of table.keys()) {
    if (!modules.has(m)) errors.push(`${rel(lib)}: the layer table names '${m}', which is no module of src/: remove it`);
  }
  for (const { file, module } of files) {
    const self = table.get(module);
    if (!self) continue;
    for (const { line, used } of uses(file)) {
      if (used === module || used === 'self' || used === 'super') continue;
      const other = table.get(used);
      if (!other) continue; // not a module of this crate's table (a re-export, a macro path): rustc checks it
      if (other.line > self.line || other.unit === self.unit) continue;
      const where = other.line === self.line ? 'on its own line' : 'above it';
      errors.push(
        `${rel(file)}:${line}: '${module}' uses '${used}', which is ${where} in the layer table of ${rel(lib)}: ` +
          `move the code, or hand it what it needs from above`,
      );
    }
  }
  return { checked: true, errors, modules: modules.size };
}

const dirs = process.argv.length > 2
  ? process.argv.slice(2).map((d) => path.resolve(d))
  : fs.readdirSync(path.join(repo, 'crates')).map((d) => path.join(repo, 'crates', d)).sort();
let failed = false;
for (const dir of dirs) {
  const name = path.relative(repo, dir);
  let r;
  try {
    r = checkCrate(dir);
  } catch (e) {
    console.error(`check-crate-layers: ${e.message}`);
    failed = true;
    continue;
  }
  if (!r.checked) {
    const own = fs.existsSync(path.join(dir, 'tests', 'layering.rs')) ? '; its own tests/layering.rs checks them' : '';
    if (r.modules > 1) console.log(`check-crate-layers: ${name}: not checked here (${r.modules} module${r.modules > 1 ? 's' : ''}, no '# Layers' table in src/lib.rs${own})`);
    else console.log(`check-crate-layers: ${name}: one module at most, nothing to check`);
    continue;
  }
  for (const e of r.errors) console.error(`check-crate-layers: ${e}`);
  if (r.errors.length) failed = true;
  else console.log(`check-crate-layers: ${name}: ${r.modules} modules keep their layers`);
}
process.exit(failed ? 1 : 0);
