// node corpus.mjs OUTDIR...: the parse corpus beside each page build, as tests/napi/pages.mjs puts it
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const { corpus } = await import('/work/wt/napi-node2/tests/napi/corpus.mjs');
const files = corpus();
for (const dir of process.argv.slice(2)) {
  mkdirSync(join(dir, 'corpus'), { recursive: true });
  files.forEach((f, i) => copyFileSync(f.path, join(dir, 'corpus', `${i}.txt`)));
  writeFileSync(join(dir, 'corpus', 'list.json'), JSON.stringify(files.map((f, i) => ({ name: f.name, file: `${i}.txt` }))));
}
