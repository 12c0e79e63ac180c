/**
 * A realistic rolldown project for the napi experiment (`--param napi.project=big`): the
 * generated project of ../project.mjs plus src/vendor.ts, which imports from real npm packages
 * (this folder's package.json and package-lock.json, pinned: @mui/material 5.15.20 with react
 * and emotion, date-fns 2.30.0, one directory per function, lodash-es, rxjs). One bundle looks
 * names up in ~724 directories (13,273 path calls, 8x the generated project's:
 * bench/results/napi-2026-11-28-bigproject, where it was first built).
 *
 * The packages come from the npm registry with `npm ci` (97 packages, ~112 MB), once: the
 * install is skipped when DIR/node_modules/.package-lock.json already lists the lockfile's
 * packages (idempotent). Returns DIR.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeProject } from '../project.mjs';

const here = dirname(fileURLToPath(import.meta.url));

const VENDOR = `import { addDays, differenceInCalendarDays, format, parseISO } from 'date-fns';
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

/** Writes the project into `dir` and installs its packages (see the module note); returns `dir`. */
export function makeBigProject(dir) {
  makeProject(dir);
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(here, f), join(dir, f));
  writeFileSync(join(dir, 'src', 'vendor.ts'), VENDOR);
  const main = join(dir, 'src', 'main.ts');
  const text = readFileSync(main, 'utf8');
  if (!text.startsWith('import { vendor }')) writeFileSync(main, `import { vendor } from './vendor';\n${text}console.log(await vendor());\n`);
  if (!installed(dir)) execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

/** DIR/node_modules holds exactly the lockfile's packages. */
function installed(dir) {
  const file = join(dir, 'node_modules', '.package-lock.json');
  if (!existsSync(file)) return false;
  const want = Object.entries(JSON.parse(readFileSync(join(here, 'package-lock.json'), 'utf8')).packages).filter(([k]) => k !== '');
  return JSON.stringify(JSON.parse(readFileSync(file, 'utf8')).packages) === JSON.stringify(Object.fromEntries(want));
}
