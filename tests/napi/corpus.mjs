// The files tests/napi and bench/napi parse with oxc: every JavaScript and TypeScript source of the
// stock fixture's packages (pinned versions: tests/napi/stock) and of spindle's runtime sources,
// sorted: the same few hundred files on every machine for one commit.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const SOURCE = /\.(js|mjs|cjs|ts|mts|cts)$/;

function walk(dir, skip) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return skip(e.name) ? [] : walk(p, skip);
    return SOURCE.test(e.name) ? [p] : [];
  });
}

/** [{ path, name }] with `name` relative to the repository (what the parser is told). */
export function corpus() {
  const roots = [
    [join(here, 'stock', 'node_modules'), (n) => n.startsWith('binding-linux')],
    [join(repo, 'runtime', 'src'), () => false],
    [join(repo, 'runtime', 'test'), (n) => n === 'fixtures'],
    [join(repo, 'bench'), (n) => n === 'node_modules' || n === 'results'],
  ];
  const files = roots.flatMap(([root, skip]) => walk(root, skip)).filter((p) => statSync(p).size > 0).sort();
  return files.map((path) => ({ path, name: relative(repo, path) }));
}
