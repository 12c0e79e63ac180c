// A generated project for bench/napi's rolldown bundle, larger than tests/napi/project so that
// reading files counts: `features` folders of `perFeature` modules each (TypeScript and
// JavaScript, imports without extensions that the resolver must probe, a JSON file per feature, a
// dynamic import per feature), all reached from src/main.ts. Deterministic: the same files for
// the same arguments. Returns the relative paths written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export function makeProject(dir, { features = 12, perFeature = 20 } = {}) {
  const files = {};
  files['package.json'] = JSON.stringify({ name: 'napi-bench-project', private: true, type: 'module' });
  const mains = [];
  for (let f = 0; f < features; f++) {
    const feature = `src/feature${f}`;
    files[`${feature}/data.json`] = JSON.stringify({ feature: f, labels: Array.from({ length: 8 }, (_, i) => `label-${f}-${i}`) });
    for (let m = 0; m < perFeature; m++) {
      const ts = m % 2 === 0;
      const next = m + 1 < perFeature ? `import { step${m + 1} } from './mod${m + 1}';\n` : '';
      const body = ts
        ? `export function step${m}(n: number): number {\n  let acc = n;\n  for (let i = 0; i < ${m + 3}; i++) acc = (acc * 31 + i) % 1000003;\n  return ${m + 1 < perFeature ? `step${m + 1}(acc)` : 'acc'};\n}\nexport const unused${m} = (s: string): string => s.repeat(${m});\n`
        : `export function step${m}(n) {\n  const xs = [n, ${m}, ${f}].map((x) => x * 2);\n  return ${m + 1 < perFeature ? `step${m + 1}(xs.reduce((a, b) => a + b, 0))` : 'xs[0]'};\n}\n`;
      files[`${feature}/mod${m}.${ts ? 'ts' : 'js'}`] = next + body;
    }
    files[`${feature}/index.ts`] = `import data from './data.json';\nimport { step0 } from './mod0';\nexport const run${f} = async (): Promise<string> => {\n  const lazy = await import('./mod${perFeature - 1}');\n  return data.labels[0] + ':' + step0(${f}) + ':' + lazy.step${perFeature - 1}(1);\n};\n`;
    mains.push(`import { run${f} } from './feature${f}';`);
  }
  files['src/main.ts'] = `${mains.join('\n')}\nconst all = [${Array.from({ length: features }, (_, f) => `run${f}`).join(', ')}];\nfor (const run of all) console.log(await run());\n`;
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return Object.keys(files);
}
