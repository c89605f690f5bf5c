// The capture view: the invariants report as findings, and the sessions'
// exchanges as a timeline, the offending ones highlighted and expandable.
// Both come from the worker (checkCapture, captureTimeline): this file reads
// no capture itself. The timeline is the component the HTML report of
// `mcpcheck run --html` shows too: one file (shared/timeline.js, from
// cli/assets/report/shared/), copied into js/shared/ by the build.
import { el } from './dom.js';
import './shared/pointer.js';
import './shared/timeline.js';

const T = globalThis.mcpcheckTimeline;

export const { dedent } = T;

function reveal(s, i) {
  T.reveal(document.getElementById(`s${s}-x${i}`));
}

export function renderCapture(report, timeline) {
  const box = el('div', { class: 'capture-report' });
  const total = report.sessions.reduce((n, s) => n + s.findings.length, 0) + report.hazards.length;
  box.append(el('p', { class: 'verdict-line' },
    el('span', { id: 'verdict', class: `badge ${report.passed ? 'pass' : 'fail'}`, 'data-status': report.passed ? 'pass' : 'fail' }, report.passed ? 'PASS' : 'FAIL'),
    ` ${total === 1 ? '1 finding' : `${total} findings`}`));
  report.sessions.forEach((s, si) => {
    const exchanges = timeline[si]?.exchanges ?? [];
    const label = s.server_label ?? `session ${si + 1}`;
    box.append(el('h2', {}, label));
    if (s.findings.length) {
      box.append(el('ul', { class: 'findings' }, s.findings.map((f) =>
        el('li', { class: 'finding', 'data-rule': f.id },
          el('span', { class: 'rule' }, f.id), ` ${f.category}: ${f.message}`,
          f.exchange === null || f.exchange === undefined
            ? null
            : [' — ', el('button', { type: 'button', class: 'link', onclick: () => reveal(si, f.exchange) }, `exchange #${f.exchange}`)]))));
    } else {
      box.append(el('p', { class: 'dim' }, 'Every invariant holds.'));
    }
    const byExchange = new Map();
    for (const f of s.findings) {
      if (f.exchange === null || f.exchange === undefined) continue;
      byExchange.set(f.exchange, [...(byExchange.get(f.exchange) ?? []), f]);
    }
    box.append(el('h3', {}, `Timeline: ${exchanges.length} exchanges`),
      T.exchangeList(exchanges, (i) => ({
        id: `s${si}-x${i}`,
        notes: (byExchange.get(i) ?? []).map((f) => ({ label: f.id, title: f.message, text: `${f.id}: ${f.message}` })),
      })));
    const unmatched = T.unmatchedList(timeline[si]?.unmatched ?? []);
    if (unmatched) box.append(el('h3', {}, `Unmatched messages: ${timeline[si].unmatched.length}`), unmatched);
    // The first offending exchange is open from the start.
    const first = s.findings.find((f) => Number.isInteger(f.exchange));
    if (first) queueMicrotask(() => T.open(box.querySelector(`#s${si}-x${first.exchange}`)));
  });
  if (report.hazards.length) {
    box.append(el('h2', {}, 'Composition hazards'),
      el('ul', { class: 'findings' }, report.hazards.map((h) =>
        el('li', { class: 'hazard' }, el('span', { class: 'rule' }, h.kind), ` ${h.message} (${h.servers.join(', ')})`))));
  }
  return box;
}
