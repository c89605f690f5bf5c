// The playground's recorded data and examples, for Node (the package's tests,
// the browser tests): the same JSON files the page's build embeds.
import { readFileSync } from 'node:fs';

import { buildExamples } from '../js/examples.js';

const read = (name) => JSON.parse(readFileSync(new URL(`../data/${name}`, import.meta.url), 'utf8'));

export const DATA = { recorded: read('recorded.json'), captures: read('captures.json') };
export const EXAMPLES = buildExamples(DATA);
