import { reverse } from '../lib/strings.js';
export const render = (total) => `home ${reverse(String(total))}`;
