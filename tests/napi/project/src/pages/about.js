import { max } from '../lib/math.js';
export const render = (total, avg) => `about total=${total} avg=${avg} max=${max([total, avg])}`;
