import { capitalize } from './strings.js';

export const greet = (who: string): string => `Hello, ${capitalize(who)}!`;
export const farewell = (who: string): string => `Goodbye, ${who}.`; // tree-shaken
