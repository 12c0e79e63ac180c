import { greet } from './lib/greet';
import { sum, mean } from './lib/math.js';
import config from './config.json';
import type { Page } from './lib/types';

const pages: Page[] = [
  { name: 'home', load: () => import('./pages/home.js') },
  { name: 'about', load: () => import('./pages/about.js') },
];

export async function start(name: string): Promise<string> {
  const page = pages.find((p) => p.name === name) ?? pages[0]!;
  const mod = await page.load();
  return `${greet(config.title)} | ${mod.render(sum([1, 2, 3]), mean([2, 4]))}`;
}

console.log(await start(config.start));
