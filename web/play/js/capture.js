// The capture view: the invariants report as findings, and the sessions'
// exchanges as a timeline, the offending ones highlighted and expandable.
// Both come from the worker (checkCapture, captureTimeline): this file reads
// no capture itself.
import { el } from './dom.js';

const ANSWERS = { result: '← result', error: '← error', no_response: '← no response', notification: '' };

function summary(x) {
  const id = x.id === null ? 'notification' : `id ${x.id}`;
  let answer = ANSWERS[x.answer] ?? '';
  if (x.answer === 'error' && x.error_code !== null) answer += ` ${x.error_code}`;
  return { method: x.method, id, answer };
}

/**
 * A message's text without the indentation it had inside the capture: a
 * pretty-printed capture nests each message, so its lines after the first
 * carry the depth it was written at (its closing bracket's indentation).
 * That much is taken off every later line that has it; the text is
 * otherwise as written.
 */
export function dedent(text) {
  const lines = text.split('\n');
  if (lines.length < 2) return text;
  const depth = /^[ \t]*/.exec(lines[lines.length - 1])[0];
  if (!depth || !lines.slice(1).every((l) => l.startsWith(depth) || !l.trim())) return text;
  return [lines[0], ...lines.slice(1).map((l) => l.slice(depth.length))].join('\n');
}

// Messages come verbatim (captureTimeline's `verbatim`): the text the
// capture holds, shown as it is but for the capture's own indentation. A
// long one scrolls, so it takes the keyboard's focus.
function block(title, text) {
  return el('div', { class: 'message' }, el('h4', {}, title), el('pre', { tabindex: '0' }, dedent(text)));
}

function exchangeItem(s, i, x, findings) {
  const { method, id, answer } = summary(x);
  const details = el('details', {},
    el('summary', {},
      el('span', { class: 'idx' }, `#${i} `),
      el('span', { class: 'method' }, method),
      ` (${id}) ${answer}`,
      findings.length ? el('span', { class: 'tags' }, findings.map((f) => el('span', { class: 'badge fail', title: f.message }, f.id))) : null));
  // Bodies are built when first opened: a capture may hold thousands of exchanges.
  details.addEventListener('toggle', () => {
    if (!details.open || details.dataset.filled) return;
    details.dataset.filled = '1';
    for (const f of findings) details.append(el('p', { class: 'reason' }, `${f.id}: ${f.message}`));
    // Titled as findings name them: "notification 0", "server request 1".
    details.append(block('request', x.request));
    if (x.response !== null) details.append(block('response', x.response));
    x.notifications.forEach((n, k) => details.append(block(`notification ${k}`, n)));
    x.server_requests.forEach((r, k) => {
      details.append(block(`server request ${k}`, r.request));
      if (r.response !== null) details.append(block(`reply to server request ${k}`, r.response));
    });
  });
  return el('li', { id: `s${s}-x${i}`, class: findings.length ? 'offending' : '' }, details);
}

function reveal(s, i) {
  const li = document.getElementById(`s${s}-x${i}`);
  if (!li) return;
  const d = li.querySelector('details');
  d.open = true;
  d.dispatchEvent(new Event('toggle'));
  li.scrollIntoView({ block: 'center' });
  d.querySelector('summary').focus();
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
      el('ol', { class: 'timeline', start: '0' }, exchanges.map((x, i) => exchangeItem(si, i, x, byExchange.get(i) ?? []))));
    // Messages that answer nothing the client sent (a finding about one has
    // no exchange); shown after the exchanges.
    const unmatched = timeline[si]?.unmatched ?? [];
    if (unmatched.length) {
      box.append(el('h3', {}, `Unmatched messages: ${unmatched.length}`),
        el('ul', { class: 'timeline' }, unmatched.map((u, k) =>
          el('li', { class: 'offending' }, el('details', { open: true },
            el('summary', {}, `unmatched message ${k}, from the server`, u.after_exchange !== null ? `, after exchange #${u.after_exchange}` : ''),
            el('pre', { tabindex: '0' }, dedent(u.message)),
            u.response === null ? null : block(`reply to unmatched message ${k}`, u.response))))));
    }
    // The first offending exchange is open from the start.
    const first = s.findings.find((f) => Number.isInteger(f.exchange));
    if (first) queueMicrotask(() => {
      const d = box.querySelector(`#s${si}-x${first.exchange} details`);
      if (d) {
        d.open = true;
        d.dispatchEvent(new Event('toggle'));
      }
    });
  });
  if (report.hazards.length) {
    box.append(el('h2', {}, 'Composition hazards'),
      el('ul', { class: 'findings' }, report.hazards.map((h) =>
        el('li', { class: 'hazard' }, el('span', { class: 'rule' }, h.kind), ` ${h.message} (${h.servers.join(', ')})`))));
  }
  return box;
}
