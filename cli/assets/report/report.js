// The HTML report of mcpcheck: lays out the data the core made
// (`mcpcheck_core::report::html`, in data/index.js) and decides nothing.
//
// A run: the summary, filters (status, file, tag, server) and search, one
// row per test; a test opened shows every check with expected and actual
// side by side and a diff of structured values, its attempts, and its
// session (data/sessions/N.js, loaded only then) as a timeline with the
// message its failing checks looked at highlighted, the server's stderr
// and timings. A findings report (doctor, audit, fuzz and the other
// analyses): every finding grouped by item, with its rule's explanation and
// fix.
//
// The page loads classic scripts from its own folder only (a page opened
// from file:// may load no module and fetch nothing): the session files
// call `mcpcheckSession(id, data)`.
(function () {
  'use strict';

  const { el, clear } = globalThis.mcpcheckDom;
  const T = globalThis.mcpcheckTimeline;
  const data = globalThis.mcpcheckReportData;
  const main = document.getElementById('main');

  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const OUTCOMES = ['pass', 'flaky', 'fail', 'error', 'skip'];
  const WORDS = { pass: 'passed', flaky: 'flaky', fail: 'failed', error: 'error', skip: 'skipped' };

  function badge(outcome, text) {
    return el('span', { class: `badge ${outcome}` }, text ?? outcome.toUpperCase());
  }

  /** A value as people read it: strings as they are, the rest as JSON. */
  function shown(v) {
    if (typeof v === 'string') return v;
    return JSON.stringify(v, null, 2);
  }

  function pre(text, cls) {
    return el('pre', { tabindex: '0', class: cls ?? null }, text);
  }

  // ------------------------------------------------------------ filters

  /**
   * A filter bar: checkboxes by outcome (or level), selects, a search box;
   * `apply` is called with the current choice whenever it changes. Returns
   * the bar and a status line.
   */
  function filterBar(spec, apply) {
    const state = { shown: new Set(spec.choices.map((c) => c.value)), selects: {}, search: '' };
    const status = el('p', { class: 'dim', role: 'status', id: 'shown' });
    const run = () => apply(state, status);
    const boxes = el('fieldset', { class: 'choices' }, el('legend', {}, spec.legend),
      spec.choices.map((c) => el('label', { class: 'choice' },
        el('input', {
          type: 'checkbox', checked: true, value: c.value, 'data-filter': spec.name,
          onchange: (e) => {
            if (e.target.checked) state.shown.add(c.value); else state.shown.delete(c.value);
            run();
          },
        }),
        ' ', badge(c.value, c.label ?? c.value), ` ${c.count}`)));
    const selects = spec.selects.filter((s) => s.values.length > 1).map((s) => {
      state.selects[s.name] = '';
      const id = `filter-${s.name}`;
      return el('span', { class: 'select' },
        el('label', { for: id }, s.label),
        el('select', {
          id, 'data-filter': s.name,
          onchange: (e) => {
            state.selects[s.name] = e.target.value;
            run();
          },
        }, el('option', { value: '' }, `all (${s.values.length})`), s.values.map((v) => el('option', { value: v }, v))));
    });
    const search = el('span', { class: 'select' },
      el('label', { for: 'search' }, 'Search'),
      el('input', {
        id: 'search', type: 'search', placeholder: spec.placeholder, autocomplete: 'off',
        oninput: (e) => {
          state.search = e.target.value.trim().toLowerCase();
          run();
        },
      }));
    const bar = el('section', { class: 'filters', 'aria-labelledby': 'filters-h' },
      el('h2', { id: 'filters-h', class: 'visually-hidden' }, 'Filters'),
      boxes, el('div', { class: 'selects' }, selects, search), status);
    return { bar, run };
  }

  const distinct = (values) => [...new Set(values.filter((v) => v !== '' && v !== null && v !== undefined))].sort();

  // ------------------------------------------------------------ a run

  function summaryLine(s) {
    const parts = [`${s.passed - (s.flaky ?? 0)} passed`];
    if (s.flaky) parts.push(`${s.flaky} flaky`);
    if (s.failed) parts.push(`${s.failed} failed`);
    if (s.errored) parts.push(`${s.errored} error`);
    if (s.skipped) parts.push(`${s.skipped} skipped`);
    return `${plural(s.total, 'test', 'tests')}: ${parts.join(', ')} (${seconds(s.duration_ms)})`;
  }

  function renderRun(d) {
    const s = d.summary;
    const head = el('section', { class: 'summary', 'aria-labelledby': 'summary-h' },
      el('h2', { id: 'summary-h' }, 'Summary'),
      el('p', { class: 'verdict' }, badge(d.passed ? 'pass' : 'fail', d.passed ? 'PASSED' : 'FAILED'), ' ', el('span', { id: 'totals' }, summaryLine(s))));
    if (d.reliability) {
      const r = d.reliability;
      head.append(el('p', {}, `Over ${r.trials} trials: pass@${r.trials} ${r.pass_at_k}/${r.tests} tests, pass^${r.trials} ${r.pass_hat_k}/${r.tests}.`));
    }
    if (d.metric_rollups && d.metric_rollups.length) {
      head.append(el('ul', { class: 'rollups' }, d.metric_rollups.map((m) => el('li', {}, `${m.name}: mean ${m.mean} over ${plural(m.count, 'test', 'tests')}`))));
    }
    main.append(head);

    const tests = d.tests;
    const count = (o) => tests.filter((t) => t.outcome === o).length;
    const choices = OUTCOMES.filter((o) => count(o) > 0).map((o) => ({ value: o, label: o, count: count(o) }));
    const rows = [];
    const { bar, run } = filterBar({
      name: 'status',
      legend: 'Status',
      choices,
      placeholder: 'name, file, message, check…',
      selects: [
        { name: 'file', label: 'File', values: distinct(tests.map((t) => t.file)) },
        { name: 'tag', label: 'Tag', values: distinct(tests.flatMap((t) => t.tags ?? [])) },
        { name: 'server', label: 'Server', values: distinct(tests.map((t) => t.server)) },
      ],
    }, (state, status) => {
      let n = 0;
      for (const { t, li, text } of rows) {
        const ok = state.shown.has(t.outcome)
          && (!state.selects.file || t.file === state.selects.file)
          && (!state.selects.tag || (t.tags ?? []).includes(state.selects.tag))
          && (!state.selects.server || t.server === state.selects.server)
          && (!state.search || text.includes(state.search));
        li.hidden = !ok;
        if (ok) n++;
      }
      status.textContent = `Showing ${n} of ${plural(tests.length, 'test', 'tests')}.`;
    });
    main.append(bar);

    const list = el('ol', { class: 'tests', id: 'tests', 'aria-labelledby': 'tests-h' });
    for (const t of tests) {
      const li = testRow(t);
      list.append(li);
      const text = [t.name, t.file, t.message, t.server, ...(t.tags ?? []),
        ...t.checks.flatMap((c) => [c.name, c.target, c.reason, c.expected, c.actual])]
        .filter(Boolean).join('\n').toLowerCase();
      rows.push({ t, li, text });
    }
    main.append(el('section', { 'aria-labelledby': 'tests-h' }, el('h2', { id: 'tests-h' }, 'Tests'),
      tests.length ? list : el('p', { class: 'dim' }, 'No tests ran.')));
    run();
    // A failing test is opened from the start when it is the only one.
    const failing = rows.filter((r) => r.t.outcome === 'fail' || r.t.outcome === 'error');
    if (failing.length === 1) open(failing[0].li);
  }

  function open(li) {
    const d = li.querySelector('details');
    d.open = true;
    d.dispatchEvent(new Event('toggle'));
  }

  function where(t) {
    if (!t.file) return '';
    return t.line ? `${t.file}:${t.line}` : t.file;
  }

  function testRow(t) {
    const summary = el('summary', {},
      badge(t.outcome),
      ' ', el('span', { class: 'name' }, t.name),
      where(t) ? el('span', { class: 'where' }, ` ${where(t)}`) : null,
      t.outcome === 'skip' ? null : el('span', { class: 'ms' }, ` ${t.duration_ms} ms`),
      (t.tags ?? []).map((g) => el('span', { class: 'tag' }, g)));
    const body = el('div', { class: 'body' });
    const details = el('details', {}, summary, body);
    details.addEventListener('toggle', () => {
      if (!details.open || details.dataset.filled) return;
      details.dataset.filled = '1';
      testBody(t, body);
    });
    return el('li', { class: `test ${t.outcome}`, id: `test-${t.id}`, 'data-outcome': t.outcome, 'data-id': t.id }, details);
  }

  function testBody(t, box) {
    const facts = [];
    if (t.file) facts.push(['File', where(t)]);
    if (t.server) facts.push(['Server', t.server]);
    if (t.outcome !== 'skip') facts.push(['Time', `${t.duration_ms} ms`]);
    if (t.score !== undefined && t.score !== null) facts.push(['Score', t.threshold !== undefined && t.threshold !== null ? `${t.score} (threshold ${t.threshold})` : `${t.score}`]);
    if (t.trials) facts.push(['Trials', `${t.trials.passed} of ${t.trials.count} passed (${t.trials.statuses.join(', ')})`]);
    if (t.tags && t.tags.length) facts.push(['Tags', t.tags.join(', ')]);
    box.append(el('dl', { class: 'facts' }, facts.map(([k, v]) => [el('dt', {}, k), el('dd', {}, v)])));
    const failing = t.checks.filter((c) => c.status !== 'pass');
    if (t.message && (t.status !== 'fail' || !failing.length)) {
      box.append(el('h3', {}, t.status === 'skip' ? 'Why it was skipped' : 'Message'), pre(t.message, 'message-text'));
    }
    if (t.attempts && t.attempts.length > 1) {
      box.append(el('h3', {}, 'Attempts'), el('ol', { class: 'attempts' }, t.attempts.map((a, i) =>
        el('li', {}, badge(a.status), ` attempt ${i + 1} (${a.duration_ms} ms)`, a.message ? [' — ', el('span', { class: 'reason' }, a.message.split('\n')[0])] : null))));
    }
    if (failing.length) {
      box.append(el('h3', {}, `Checks that did not pass: ${failing.length} of ${t.checks.length}`));
      for (const c of failing) box.append(checkView(c));
    }
    const passing = t.checks.filter((c) => c.status === 'pass');
    if (passing.length) {
      // Every check, with what it expected and found: the passing ones folded.
      box.append(el('details', { class: 'passing' }, el('summary', {}, `${plural(passing.length, 'check', 'checks')} passed`),
        passing.map(checkView)));
    }
    for (const m of t.derived_metrics ?? []) {
      box.append(el('p', {}, `metric ${m.name} = ${m.value}`, m.threshold !== undefined ? ` (threshold ${m.threshold})` : '', m.passed === false ? ' — below its threshold' : ''));
    }
    if (t.warnings && t.warnings.length) {
      box.append(el('h3', {}, 'Warnings'), el('ul', { class: 'warnings' }, t.warnings.map((w) => el('li', {}, w))));
    }
    if (t.session) {
      const session = el('div', { class: 'session', 'aria-live': 'polite' }, el('p', { class: 'dim' }, 'Loading the session…'));
      box.append(el('h3', {}, 'Session'), session);
      loadSession(t, session);
    } else if (t.status !== 'skip') {
      box.append(el('p', { class: 'dim' }, 'No session was recorded for this test.'));
    }
  }

  function checkView(c) {
    const sides = el('div', { class: 'sides' },
      el('div', { class: 'side expected' }, el('h4', {}, 'Expected'), pre(c.expected),
        c.expected_value !== undefined && typeof c.expected_value === 'object' && c.expected_value !== null ? pre(shown(c.expected_value), 'value') : null),
      el('div', { class: 'side actual' }, el('h4', {}, 'Actual'),
        c.actual_value !== undefined ? pre(shown(c.actual_value)) : pre(c.actual)));
    const view = el('div', { class: `check ${c.status}`, 'data-check': c.name },
      el('p', { class: 'check-head' }, badge(c.status), ' ', el('b', {}, c.name), ' on ', el('code', {}, c.target),
        c.set ? ` in assert-set ${c.set}` : '', c.line ? ` (line ${c.line})` : ''),
      c.reason ? el('p', { class: 'reason' }, c.reason) : null,
      sides);
    if (c.diff && c.diff.length) view.append(diffView(c.diff));
    return view;
  }

  function diffView(rows) {
    if (rows[0].path !== undefined || rows[0].op === 'more' && rows.length === 1) {
      return el('div', { class: 'diff' }, el('h4', {}, 'Difference'),
        el('ul', {}, rows.map((r) => {
          if (r.op === 'more') return el('li', { class: 'dim' }, `… and ${plural(r.count, 'more difference', 'more differences')}`);
          const v = (x) => el('code', {}, JSON.stringify(x));
          if (r.op === 'changed') return el('li', { class: 'changed' }, el('code', {}, r.path), ': expected ', v(r.expected), ', actual ', v(r.actual));
          if (r.op === 'removed') return el('li', { class: 'removed' }, el('code', {}, r.path), ': expected ', v(r.expected), ', missing in the actual value');
          return el('li', { class: 'added' }, el('code', {}, r.path), ': not expected, actual ', v(r.actual));
        })));
    }
    const sign = { same: '  ', added: '+ ', removed: '- ' };
    return el('div', { class: 'diff' }, el('h4', {}, 'Difference (- expected, + actual)'),
      el('pre', { tabindex: '0', class: 'lines' }, rows.map((r) => r.op === 'more'
        ? el('span', { class: 'dim' }, `… and ${r.count} more lines\n`)
        : el('span', { class: r.op }, `${sign[r.op]}${r.text}\n`))));
  }

  // ------------------------------------------------------------ sessions

  const waiting = new Map();
  // The session files call this; an unexpected call is ignored.
  globalThis.mcpcheckSession = (id, doc) => {
    const done = waiting.get(id);
    if (done) {
      waiting.delete(id);
      done(doc);
    }
  };

  function loadSession(t, box) {
    waiting.set(t.id, (doc) => renderSession(t, doc, box));
    const script = el('script', { src: t.session });
    script.addEventListener('error', () => {
      waiting.delete(t.id);
      clear(box);
      box.append(el('p', { class: 'failed' }, `The session file ${t.session} could not be loaded: is it still next to this page?`));
    });
    document.body.append(script);
  }

  function renderSession(t, doc, box) {
    clear(box);
    // The attempts before the reported one (--retries): how a flaky test
    // failed, each with its own session.
    (doc.earlier ?? []).forEach((a, k) => {
      const part = el('section', { class: 'attempt', 'aria-labelledby': `t${t.id}-a${k}-h` },
        el('h4', { id: `t${t.id}-a${k}-h` }, badge(a.status), ` Attempt ${k + 1} (${a.duration_ms} ms)`));
      if (a.message) part.append(pre(a.message, 'message-text'));
      for (const c of a.checks ?? []) part.append(checkView(c));
      timelines(`t${t.id}-a${k}`, a, part);
      box.append(part);
    });
    const last = el('section', { class: 'attempt', 'aria-labelledby': `t${t.id}-last-h` });
    if (doc.earlier && doc.earlier.length) {
      last.append(el('h4', { id: `t${t.id}-last-h` }, badge(t.status), ` Attempt ${doc.earlier.length + 1}, the one reported (${doc.duration_ms} ms)`));
    } else {
      last.removeAttribute('aria-labelledby');
    }
    timelines(`t${t.id}`, doc, last);
    box.append(last);
  }

  /** A session document's timelines, the exchange its checks looked at
   * highlighted and open, then the server's stderr. */
  function timelines(prefix, doc, box) {
    if (doc.error) box.append(el('p', { class: 'failed' }, doc.error));
    const focus = doc.focus;
    const sessions = doc.timeline ?? [];
    sessions.forEach((s, si) => {
      const exchanges = s.exchanges ?? [];
      const total = exchanges.reduce((sum, x) => sum + (T.elapsed(x.request_time, x.response_time) ?? 0), 0);
      box.append(el('h5', {}, `${s.server_label ?? `session ${si + 1}`}: ${plural(exchanges.length, 'exchange', 'exchanges')}`,
        total ? el('span', { class: 'dim' }, ` · ${total} ms answering`) : null));
      box.append(T.exchangeList(exchanges, (i) => {
        const id = `${prefix}-s${si}-x${i}`;
        if (!focus || focus.session !== si || focus.exchange !== i) return { id };
        const notes = focus.checks.map((c) => ({
          label: c.name,
          cls: c.status,
          title: `looked at by the check ${c.name}`,
          text: `The check ${c.name} (${c.status}) looked at ${c.pointer === null ? 'this exchange' : `${c.pointer} of the response`}.`,
        }));
        return {
          id,
          cls: 'looked',
          notes: notes.length ? notes : [{ label: 'checked', cls: 'pass', text: 'The test checked the answer to this request.' }],
          marks: focus.checks.map((c) => c.pointer).filter((p) => p !== null),
        };
      }));
      const unmatched = T.unmatchedList(s.unmatched ?? []);
      if (unmatched) box.append(el('h5', {}, `Unmatched messages: ${s.unmatched.length}`), unmatched);
    });
    if (!sessions.length && !doc.error) box.append(el('p', { class: 'dim' }, 'No session was recorded for this attempt.'));
    if (focus) T.open(box.querySelector(`#${prefix}-s${focus.session}-x${focus.exchange}`));
    box.append(el('h5', {}, 'Server stderr'),
      doc.stderr ? pre(doc.stderr, 'stderr') : el('p', { class: 'dim' }, 'The server wrote nothing on stderr (or it is not a local process).'));
  }

  // ------------------------------------------------------------ findings

  const LEVELS = ['error', 'warning', 'note'];

  function renderFindings(d) {
    const counts = d.counts ?? {};
    const head = el('section', { class: 'summary', 'aria-labelledby': 'summary-h' },
      el('h2', { id: 'summary-h' }, 'Summary'),
      el('p', { class: 'verdict' }, badge(d.passed ? 'pass' : 'fail', d.passed ? 'PASSED' : 'FAILED'), ' ',
        el('span', { id: 'totals' }, `${d.command}: ${d.subject} — ${plural(counts.error ?? 0, 'error', 'errors')}, ${plural(counts.warning ?? 0, 'warning', 'warnings')}, ${plural(counts.note ?? 0, 'note', 'notes')}`)));
    const named = (d.facts ?? []).filter((f) => f.name);
    const plain = (d.facts ?? []).filter((f) => !f.name).map((f) => f.value);
    if (plain.length) head.append(el('p', { class: 'dim' }, plain.join(' · ')));
    if (named.length) head.append(el('dl', { class: 'facts' }, named.map((f) => [el('dt', {}, f.name), el('dd', {}, f.value)])));
    if (d.score !== undefined && !(d.summary_lines ?? []).length) head.append(el('p', {}, `Score: ${d.score} of 100`));
    for (const line of d.summary_lines ?? []) head.append(el('p', {}, line));
    if (d.notes && d.notes.length) head.append(el('ul', { class: 'notes' }, d.notes.map((n) => el('li', { class: n.fails ? 'failed' : '' }, n.text))));
    main.append(head);

    const findings = d.findings ?? [];
    const cases = d.cases ?? [];
    if (cases.length) {
      const word = { passed: 'pass', failed: 'fail', error: 'error', noted: 'warning' };
      main.append(el('section', { 'aria-labelledby': 'cases-h' },
        el('h2', { id: 'cases-h' }, `What was examined: ${cases.length}`),
        el('ul', { class: 'cases', id: 'cases' }, cases.map((c) => el('li', { class: `case ${c.status}`, 'data-status': c.status },
          badge(word[c.status] ?? 'skip', c.label),
          ' ', c.class ? el('span', { class: 'dim' }, `${c.class} `) : null, el('b', {}, c.name),
          c.suite ? el('span', { class: 'dim' }, ` (${c.suite})`) : null,
          c.detail ? ` — ${c.detail}` : null,
          c.duration_ms !== null && c.duration_ms !== undefined ? el('span', { class: 'dim' }, ` · ${c.duration_ms} ms`) : null,
          c.findings.length ? el('span', { class: 'dim' }, ` · ${plural(c.findings.length, 'finding', 'findings')}`) : null)))));
    }
    const count = (l) => findings.filter((f) => f.level === l).length;
    const groups = d.groups ?? [];
    const rows = [];
    const { bar, run } = filterBar({
      name: 'level',
      legend: 'Level',
      choices: LEVELS.filter((l) => count(l) > 0).map((l) => ({ value: l, count: count(l) })),
      placeholder: 'item, rule, message…',
      selects: [{ name: 'server', label: 'Server', values: distinct(findings.map((f) => f.server)) }],
    }, (state, status) => {
      let n = 0;
      for (const { li, items } of rows) {
        let any = false;
        for (const { f, node, text } of items) {
          const ok = state.shown.has(f.level)
            && (!state.selects.server || f.server === state.selects.server)
            && (!state.search || text.includes(state.search));
          node.hidden = !ok;
          if (ok) {
            any = true;
            n++;
          }
        }
        li.hidden = !any;
      }
      status.textContent = `Showing ${n} of ${plural(findings.length, 'finding', 'findings')}.`;
    });
    if (findings.length) main.append(bar);

    const list = el('ol', { class: 'groups', id: 'groups', 'aria-labelledby': 'groups-h' });
    for (const g of groups) {
      const items = g.findings.map((i) => {
        const f = findings[i];
        const rule = d.rules?.[f.code];
        const node = findingView(f, rule);
        const text = [g.name, f.code, f.message, f.item, f.field, f.evidence, f.server, f.context, rule?.title]
          .filter(Boolean).join('\n').toLowerCase();
        return { f, node, text };
      });
      const li = el('li', { class: `group ${g.level}`, 'data-level': g.level },
        el('details', { open: true },
          el('summary', {}, badge({ error: 'fail', warning: 'warning', note: 'skip' }[g.level] ?? 'skip', g.level),
            ' ', el('b', {}, g.name),
            g.server ? el('span', { class: 'dim' }, ` on ${g.server}`) : null,
            el('span', { class: 'dim' }, ` · ${plural(items.length, 'finding', 'findings')}`)),
          el('div', { class: 'body' }, items.map((x) => x.node))));
      list.append(li);
      rows.push({ li, items });
    }
    main.append(el('section', { 'aria-labelledby': 'groups-h' }, el('h2', { id: 'groups-h' }, 'Findings by item'),
      groups.length ? list : el('p', { class: 'dim' }, 'Nothing was found.')));
    if (d.suppressed && d.suppressed.length) {
      main.append(el('section', { 'aria-labelledby': 'suppressed-h' }, el('h2', { id: 'suppressed-h' }, `Suppressed: ${d.suppressed.length}`),
        el('ul', {}, d.suppressed.map((f) => el('li', {}, el('code', {}, f.code), ` ${f.item ?? ''}: ${f.message} — ${f.reason}`)))));
    }
    run();
  }

  function findingView(f, rule) {
    const place = [f.server ? `server ${f.server}` : '', f.field ? `at ${f.field}` : '', f.exchange !== undefined ? `exchange ${f.exchange}` : '', f.context ?? '', f.file ?? '']
      .filter(Boolean).join(', ');
    const levelClass = { error: 'fail', warning: 'warning', note: 'skip' }[f.level] ?? 'skip';
    const view = el('article', { class: `finding ${f.level}`, 'data-code': f.code },
      el('h3', {}, badge(levelClass, f.level), ' ', el('code', {}, f.code), rule && rule.title ? ` ${rule.title}` : ''),
      el('p', { class: 'message-text' }, f.message),
      place ? el('p', { class: 'dim' }, place) : null,
      f.evidence ? [el('h4', {}, 'Evidence'), pre(f.evidence)] : null,
      Object.entries(f.details ?? {}).map(([k, v]) => [el('h4', {}, k), pre(v)]));
    if (rule) {
      view.append(el('div', { class: 'rule' },
        rule.rationale ? el('p', {}, el('b', {}, 'Why it matters: '), rule.rationale) : null,
        rule.fix ? el('p', {}, el('b', {}, 'How to fix it: '), rule.fix) : null,
        rule.source ? el('p', { class: 'dim' }, `Source: ${rule.source}`) : null));
    }
    return view;
  }

  // ------------------------------------------------------------ the page

  if (!data) {
    main.append(el('p', { class: 'failed' }, 'This report has no data: data/index.js is missing next to this page.'));
    return;
  }
  document.title = data.title;
  document.getElementById('title').textContent = data.title;
  if (data.tool) document.getElementById('tool').textContent = `${data.tool.name} ${data.tool.version}`;
  if (data.kind === 'run') renderRun(data);
  else renderFindings(data);
})();
