// The worker, started as early as the page's scripts can: main.js imports
// this module first.
import { Checker } from './checker.js';

export const checker = new Checker(new URL('./worker.js', import.meta.url));
