// The scan view: scanListing's report (from the worker) as a summary, a
// table of findings, marks on the lines of the pasted listing, and for each
// finding the exact offending text selected on demand (its `span`, byte
// offsets in the field's decoded string, mapped back to the JSON text here).
// Every string from the listing or the report is set as text.
import { el } from './dom.js';
import { locateValues } from './pointer.js';

const RANK = { high: 4, medium: 3, low: 2, info: 1 };

/** UTF-8 length of a code point. */
const utf8 = (cp) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/**
 * Text offsets of a byte range of the string literal whose opening quote is
 * at `quote` in `text`: the literal is decoded one code point at a time
 * (escapes included) and its UTF-8 bytes counted. Null when the range does
 * not fall on the literal's code points.
 */
export function spanInLiteral(text, quote, [from, to]) {
  let i = quote + 1;
  let bytes = 0;
  let start = null;
  for (;;) {
    if (start === null && bytes === from) start = i;
    if (bytes === to) return start === null ? null : { start, end: i };
    if (bytes > to || i >= text.length || text[i] === '"') return null;
    let cp;
    let width;
    if (text[i] === '\\') {
      if (text[i + 1] === 'u') {
        cp = parseInt(text.slice(i + 2, i + 6), 16);
        width = 6;
        const low = text[i + 6] === '\\' && text[i + 7] === 'u' ? parseInt(text.slice(i + 8, i + 12), 16) : NaN;
        if (cp >= 0xd800 && cp < 0xdc00 && low >= 0xdc00 && low < 0xe000) {
          cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          width = 12;
        }
      } else {
        cp = 0x20; // \n, \t, \", \\, \/ …: one ASCII byte
        width = 2;
      }
    } else {
      cp = text.codePointAt(i);
      width = cp > 0xffff ? 2 : 1;
    }
    // A lone surrogate decodes to U+FFFD (3 bytes), as the core reads it.
    bytes += cp >= 0xd800 && cp < 0xe000 ? 3 : utf8(cp);
    i += width;
  }
}

/**
 * Where each finding is in `text` (`{line, start, end, exact}`, narrowed to
 * the offending text when the finding has a span), and the editor's marks:
 * a Map of line → `{title, severity}` (the worst severity on the line,
 * every message in the title).
 */
export function placeScanFindings(text, findings) {
  // An array of listings is several servers, labelled `name#1`, `name#2`, …;
  // a finding's pointer is into its own server's listing.
  const several = text.trimStart().startsWith('[');
  const pointer = (f) => {
    const n = /#(\d+)$/.exec(f.server);
    return several && n ? `/${Number(n[1]) - 1}${f.field}` : f.field;
  };
  const values = locateValues(text, findings.map(pointer));
  const places = findings.map((f, i) => {
    const at = values[i];
    if (!at) return null;
    const narrow = at.exact && f.span && text[at.valueStart] === '"' ? spanInLiteral(text, at.valueStart, f.span) : null;
    if (!narrow) return at;
    return { ...at, start: narrow.start, end: narrow.end, line: at.lineOf(narrow.start), evidence: true };
  });
  const marks = new Map();
  findings.forEach((f, i) => {
    const at = places[i];
    if (!at) return;
    const line = `${f.code} ${f.severity}: ${f.message}`;
    const had = marks.get(at.line);
    if (!had) marks.set(at.line, { title: line, severity: f.severity });
    else {
      had.title += `\n${line}`;
      if (RANK[f.severity] > RANK[had.severity]) had.severity = f.severity;
    }
  });
  return { places, marks };
}

/** The report, with each finding linked to its place in the editor. */
export function renderScan(report, editor, places) {
  const box = el('div', { class: 'lint-report scan-report' });
  const count = (s) => report.findings.filter((f) => f.severity === s).length;
  const status = report.passed ? 'pass' : 'fail';
  box.append(el('p', { class: 'verdict-line' },
    el('span', { id: 'verdict', class: `badge ${status}`, 'data-status': status }, report.passed ? 'PASS' : 'FAIL'),
    ' ',
    el('span', { class: 'scan-summary' },
      `${count('high')} high, ${count('medium')} medium, ${count('low')} low, ${count('info')} info`)));
  if (!report.findings.length) {
    box.append(el('p', { class: 'dim' }, 'No finding: nothing in this listing matches a known attack pattern.'));
    return box;
  }
  const rows = report.findings.map((f, i) => {
    const at = places[i];
    return el('tr', { class: `finding ${f.severity}`, 'data-code': f.code, 'data-line': at ? at.line : '' },
      el('td', { 'data-label': 'code' }, el('span', { class: 'rule' }, f.code)),
      el('td', { 'data-label': 'severity' }, el('span', { class: `badge sev-${f.severity}` }, f.severity)),
      el('td', { 'data-label': 'item' }, f.item, el('span', { class: 'dim' }, ` (${f.kind.replace('_', ' ')})`)),
      el('td', { 'data-label': 'message', class: 'reason' }, f.message),
      el('td', { 'data-label': 'evidence' }, el('code', { class: 'evidence' }, f.evidence)),
      el('td', { 'data-label': 'field' },
        at
          ? el('button', {
            type: 'button',
            class: 'link',
            title: at.evidence ? `select the offending text (line ${at.line})` : `line ${at.line}`,
            onclick: () => editor.select(at.start, at.exact ? at.end : at.start, at.line),
          }, el('code', {}, f.field || '/'), ` line ${at.line}`)
          : el('code', {}, f.field || '/')));
  });
  box.append(el('table', { class: 'checks lint scan' },
    el('thead', {}, el('tr', {}, ...['code', 'severity', 'item', 'message', 'evidence', 'field'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows)));
  return box;
}
