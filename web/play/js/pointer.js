// RFC 6901 JSON pointers resolved to places in JSON text, from their one
// file (cli/assets/report/shared/pointer.js, which the HTML report loads too;
// copied into js/shared/ by the build), as this page's modules import them.
import './shared/pointer.js';

export const { parseTree, segments, resolve, lineOf, locate, locateValues } = globalThis.mcpcheckPointer;
