// A session's exchanges as a timeline: one line per exchange (method, id,
// how it was answered, how long it took), its messages as the capture holds
// them when opened, the exchanges a finding or a failing check is about
// highlighted, and inside a message the fields they looked at marked.
//
// The data is the core's (`capture::timeline`, verbatim: each message is the
// text the capture holds); nothing here reads a capture or decides anything.
// One file, two pages: the playground's capture view (web/play/js/capture.js
// imports it) and the HTML report of `mcpcheck run --html` (a classic script
// there, as a page opened from file:// may load no module). It sets
// `globalThis.mcpcheckTimeline`, and uses `mcpcheckDom` and `mcpcheckPointer`
// (shared/dom.js, shared/pointer.js), looked up when called.
(function (root) {
  'use strict';

  const el = (...a) => root.mcpcheckDom.el(...a);

  const ANSWERS = { result: '← result', error: '← error', no_response: '← no response', notification: '' };

  function summary(x) {
    const id = x.id === null ? 'notification' : `id ${x.id}`;
    let answer = ANSWERS[x.answer] ?? '';
    if (x.answer === 'error' && x.error_code !== null && x.error_code !== undefined) answer += ` ${x.error_code}`;
    return { method: x.method, id, answer };
  }

  /**
   * A message's text without the indentation it had inside the capture: a
   * pretty-printed capture nests each message, so its lines after the first
   * carry the depth it was written at (its closing bracket's indentation).
   * That much is taken off every later line that has it; the text is
   * otherwise as written.
   */
  function dedent(text) {
    const lines = text.split('\n');
    if (lines.length < 2) return text;
    const depth = /^[ \t]*/.exec(lines[lines.length - 1])[0];
    if (!depth || !lines.slice(1).every((l) => l.startsWith(depth) || !l.trim())) return text;
    return [lines[0], ...lines.slice(1).map((l) => l.slice(depth.length))].join('\n');
  }

  /** Milliseconds from one RFC 3339 time to another, or null. */
  function elapsed(from, to) {
    if (!from || !to) return null;
    const ms = Date.parse(to) - Date.parse(from);
    return Number.isFinite(ms) && ms >= 0 ? ms : null;
  }

  /**
   * The text split at the places the JSON pointers name, those places in
   * <mark>: [text, mark, text, …]. Pointers that name nothing are left out.
   */
  function marked(text, pointers) {
    if (!pointers || !pointers.length || !root.mcpcheckPointer) return [text];
    const places = root.mcpcheckPointer.locate(text, pointers)
      .filter((p) => p && p.end > p.start)
      .sort((a, b) => a.start - b.start);
    const merged = [];
    for (const p of places) {
      const last = merged[merged.length - 1];
      if (last && p.start <= last.end) last.end = Math.max(last.end, p.end);
      else merged.push({ start: p.start, end: p.end });
    }
    const parts = [];
    let at = 0;
    for (const p of merged) {
      if (p.start > at) parts.push(text.slice(at, p.start));
      parts.push(el('mark', {}, text.slice(p.start, p.end)));
      at = p.end;
    }
    if (at < text.length) parts.push(text.slice(at));
    return parts;
  }

  // Messages come verbatim: the text the capture holds, shown as it is but
  // for the capture's own indentation. A long one scrolls, so it takes the
  // keyboard's focus.
  function block(title, text, pointers) {
    return el('div', { class: 'message' }, el('h4', {}, title), el('pre', { tabindex: '0' }, marked(dedent(text), pointers)));
  }

  /**
   * One exchange as a list item. `opts`: `id` (the item's element id),
   * `notes` (what is said about it: `{label, title, text}`, shown as badges
   * on its line and as paragraphs when opened), `marks` (JSON pointers of
   * fields to mark in its response), `cls` (an extra class: `offending`
   * highlights it).
   */
  function exchangeItem(i, x, opts = {}) {
    const notes = opts.notes ?? [];
    const { method, id, answer } = summary(x);
    const ms = elapsed(x.request_time, x.response_time);
    const details = el('details', {},
      el('summary', {},
        el('span', { class: 'idx' }, `#${i} `),
        el('span', { class: 'method' }, method),
        ` (${id}) ${answer}`,
        ms === null ? null : el('span', { class: 'ms' }, ` · ${ms} ms`),
        notes.length ? el('span', { class: 'tags' }, notes.map((n) => el('span', { class: `badge ${n.cls ?? 'fail'}`, title: n.title ?? n.text }, n.label))) : null));
    // Bodies are built when first opened: a capture may hold thousands of exchanges.
    details.addEventListener('toggle', () => {
      if (!details.open || details.dataset.filled) return;
      details.dataset.filled = '1';
      for (const n of notes) details.append(el('p', { class: 'reason' }, n.text));
      // Titled as findings name them: "notification 0", "server request 1".
      details.append(block('request', x.request));
      if (x.response !== null && x.response !== undefined) details.append(block('response', x.response, opts.marks));
      (x.notifications ?? []).forEach((n, k) => details.append(block(`notification ${k}`, n)));
      (x.server_requests ?? []).forEach((r, k) => {
        details.append(block(`server request ${k}`, r.request));
        if (r.response !== null && r.response !== undefined) details.append(block(`reply to server request ${k}`, r.response));
      });
    });
    const cls = [notes.length ? 'offending' : '', opts.cls ?? ''].filter(Boolean).join(' ');
    return el('li', { id: opts.id, class: cls || null }, details);
  }

  /** Opens an exchange's item (its body built), without moving the page. */
  function open(li) {
    const d = li && li.querySelector('details');
    if (!d) return;
    d.open = true;
    d.dispatchEvent(new Event('toggle'));
  }

  /** Opens an exchange's item, scrolls it into view and focuses it. */
  function reveal(li) {
    if (!li) return;
    open(li);
    li.scrollIntoView({ block: 'center' });
    li.querySelector('summary').focus();
  }

  /** A session's exchanges as an ordered list; `itemOpts(i)` as for exchangeItem. */
  function exchangeList(exchanges, itemOpts = () => ({})) {
    return el('ol', { class: 'timeline', start: '0' }, exchanges.map((x, i) => exchangeItem(i, x, itemOpts(i))));
  }

  /**
   * Messages that answer nothing the client sent (a finding about one has
   * no exchange), shown after the exchanges; null when there are none.
   */
  function unmatchedList(unmatched) {
    if (!unmatched || !unmatched.length) return null;
    return el('ul', { class: 'timeline' }, unmatched.map((u, k) =>
      el('li', { class: 'offending' }, el('details', { open: true },
        el('summary', {}, `unmatched message ${k}, from the server`, u.after_exchange !== null && u.after_exchange !== undefined ? `, after exchange #${u.after_exchange}` : ''),
        el('pre', { tabindex: '0' }, dedent(u.message)),
        u.response === null || u.response === undefined ? null : block(`reply to unmatched message ${k}`, u.response)))));
  }

  root.mcpcheckTimeline = { dedent, elapsed, marked, exchangeItem, exchangeList, unmatchedList, open, reveal };
})(globalThis);
