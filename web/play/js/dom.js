// Building DOM without HTML parsing: the helpers the HTML report uses too,
// from their one file (cli/assets/report/shared/dom.js, copied into js/shared/
// by the build), as this page's modules import them.
import './shared/dom.js';

export const { el, clear } = globalThis.mcpcheckDom;
