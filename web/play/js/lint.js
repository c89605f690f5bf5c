// The lint view: lintListing's report (from the worker) as a summary, a
// table of findings, and marks on the lines of the pasted listing that the
// findings' pointers name (pointer.js finds them in the text). Every string
// from the listing or the report is set as text.
import { el } from './dom.js';
import { locate } from './pointer.js';

const RANK = { error: 3, warning: 2, info: 1 };
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Where each finding is in `text`, and the editor's marks: a Map of line →
 * `{title, severity}` (the worst severity on the line, every message in the
 * title).
 */
export function placeFindings(text, findings) {
  const places = locate(text, findings.map((f) => f.field));
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
export function renderLint(report, editor, places) {
  const box = el('div', { class: 'lint-report' });
  const info = report.findings.filter((f) => f.severity === 'info').length;
  const status = report.passed ? 'pass' : 'fail';
  box.append(el('p', { class: 'verdict-line' },
    el('span', { id: 'verdict', class: `badge ${status}`, 'data-status': status }, report.passed ? 'PASS' : 'FAIL'),
    ' ',
    el('span', { class: 'lint-summary' },
      `${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')}, ${info} info`)));
  if (!report.findings.length) {
    box.append(el('p', { class: 'dim' }, 'No finding: every rule holds.'));
    return box;
  }
  const rows = report.findings.map((f, i) => {
    const at = places[i];
    return el('tr', { class: `finding ${f.severity}`, 'data-code': f.code, 'data-line': at ? at.line : '' },
      el('td', { 'data-label': 'code' }, el('span', { class: 'rule' }, f.code)),
      el('td', { 'data-label': 'severity' }, el('span', { class: `badge sev-${f.severity}` }, f.severity)),
      el('td', { 'data-label': 'item' }, f.tool, el('span', { class: 'dim' }, ` (${f.kind.replace('_', ' ')})`)),
      el('td', { 'data-label': 'message', class: 'reason' }, f.message),
      el('td', { 'data-label': 'field' },
        at
          ? el('button', {
            type: 'button',
            class: 'link',
            title: at.exact ? `line ${at.line}` : `line ${at.line} (the field is missing: its parent)`,
            onclick: () => editor.select(at.start, at.exact ? at.end : at.start, at.line),
          }, el('code', {}, f.field || '/'), ` line ${at.line}`)
          : el('code', {}, f.field || '/')));
  });
  box.append(el('table', { class: 'checks lint' },
    el('thead', {}, el('tr', {}, ...['code', 'severity', 'item', 'message', 'field'].map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows)));
  return box;
}
