// node bigproject.mjs DIR: a realistic rolldown project for issue 19's host-directory question:
// bench/napi/project.mjs's generated 266 files (12 features x 20 modules) plus src/vendor.ts,
// which imports from real npm packages (package.json / package-lock.json of this folder, pinned:
// @mui/material 5.15.20 with react and emotion, date-fns 2.30.0 (one directory per function),
// lodash-es, rxjs), installed from the npm registry with `npm ci` into DIR/node_modules (skipped
// when DIR/node_modules/.package-lock.json already equals the lockfile: idempotent).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeProject } from '../../napi/project.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = resolve(process.argv[2] ?? '/tmp/h52/big');
makeProject(dir);
for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(here, f), join(dir, f));
const vendor = `import { addDays, differenceInCalendarDays, format, parseISO } from 'date-fns';
import { chunk, debounce, groupBy, sortBy } from 'lodash-es';
import { filter, from, lastValueFrom, map, reduce } from 'rxjs';
import { Button, Card, CardContent, Dialog, TextField, Typography, createTheme } from '@mui/material';
import { createElement } from 'react';

export async function vendor(): Promise<string> {
  const d = addDays(parseISO('2026-11-28'), 3);
  const days = differenceInCalendarDays(d, parseISO('2026-01-01'));
  const groups = groupBy(sortBy([3, 1, 2, 5, 4]), (n: number) => n % 2);
  const sum = await lastValueFrom(from(chunk([1, 2, 3, 4, 5, 6], 2)).pipe(map((c) => c.length), filter((n) => n > 0), reduce((a, b) => a + b, 0)));
  const theme = createTheme({ palette: { mode: 'dark' } });
  const ui = [Button, Card, CardContent, Dialog, TextField, Typography].map((c) => createElement(c, { key: String(days) }));
  debounce(() => ui, 10);
  return [format(d, 'yyyy-MM-dd'), days, Object.keys(groups).length, sum, theme.palette.mode, ui.length].join(' ');
}
`;
writeFileSync(join(dir, 'src', 'vendor.ts'), vendor);
const main = join(dir, 'src', 'main.ts');
const text = readFileSync(main, 'utf8');
if (!text.startsWith("import { vendor }")) writeFileSync(main, `import { vendor } from './vendor';\n${text}console.log(await vendor());\n`);
const lock = readFileSync(join(here, 'package-lock.json'), 'utf8');
const installed = join(dir, 'node_modules', '.package-lock.json');
const same = existsSync(installed) && JSON.stringify(JSON.parse(readFileSync(installed, 'utf8')).packages) === JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(lock).packages).filter(([k]) => k !== '')));
if (!same) execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
console.log(dir);
