// The playground page: editors, the examples menu, the state in the URL
// fragment, and the rendering of results. Every verdict comes from the
// worker (mcpcheck-web, the checker core compiled to WebAssembly); this file
// only moves text in and shows the results document. Text from the editors
// and from results is only ever set as textContent, never parsed as HTML.

// First, so the worker starts loading the module before the rest of the
// page's scripts run.
import { checker } from './start.js';
import { DATA } from './data.js';
import { buildExamples, buildLintExamples, buildScanExamples, buildSuiteExamples } from './examples.js';
import { decodeState, encodeState } from './state.js';
import { el, clear } from './dom.js';

const EXAMPLES = [...buildExamples(DATA), ...buildLintExamples(DATA), ...buildScanExamples(DATA), ...buildSuiteExamples()];
const TABS = ['response', 'capture', 'trajectory', 'lint', 'scan', 'suite'];
const EDITORS = ['expect', 'response', 'capture', 'trace', 'assertions', 'listing', 'surface', 'suite'];
const field = (id) => document.getElementById(id);

let tab = 'response';
const runs = { response: 0, capture: 0, trajectory: 0, lint: 0, scan: 0, suite: 0 };
const requestField = field('request');
const suiteClient = field('suite-client');

// ---------------------------------------------------------------- editors

/** Line numbers beside each textarea, with the lines diagnostics point at marked. */
class Editor {
  constructor(textarea) {
    this.ta = textarea;
    this.box = textarea.parentElement;
    this.gutter = this.box.querySelector('.gutter');
    this.file = this.box.dataset.file;
    this.bad = new Map();
    this.lines = 0;
    textarea.addEventListener('scroll', () => {
      this.gutter.scrollTop = textarea.scrollTop;
    });
    textarea.addEventListener('input', () => this.refresh());
  }

  get value() {
    return this.ta.value;
  }

  set value(v) {
    this.ta.value = v;
    this.refresh();
  }

  /** Mark lines: a Map of line → message, or of line → `{title, severity}`
   * (a `read-…` severity marks what checks read, not a problem). */
  mark(bad) {
    this.bad = bad;
    this.lines = -1;
    this.refresh();
    const problem = [...bad.values()].some((m) => typeof m === 'string' || !String(m.severity).startsWith('read-'));
    this.box.classList.toggle('has-error', problem);
  }

  refresh() {
    const n = countLines(this.ta.value);
    if (n === this.lines) return;
    this.lines = n;
    clear(this.gutter);
    // Plain numbers in one text node between marked lines, so a large
    // document costs a few nodes, not one per line.
    let from = 1;
    const marked = [...this.bad.keys()].filter((l) => l >= 1 && l <= n).sort((a, b) => a - b);
    for (const line of marked) {
      if (line > from) this.gutter.append(numbers(from, line - 1));
      const m = this.bad.get(line);
      const title = typeof m === 'string' ? m : m.title;
      const severity = typeof m === 'string' ? null : m.severity;
      this.gutter.append(el('span', { class: severity ? `bad ${severity}` : 'bad', title, 'data-line': line }, `${line}\n`));
      from = line + 1;
    }
    if (from <= n) this.gutter.append(numbers(from, n));
    this.gutter.scrollTop = this.ta.scrollTop;
  }

  /** Put the caret on a line (and column) and show it. */
  goto(line, column = 1) {
    const text = this.ta.value;
    let pos = 0;
    for (let l = 1; l < line && pos !== -1; l++) pos = text.indexOf('\n', pos) + 1 || -1;
    if (pos < 0) pos = text.length;
    const end = text.indexOf('\n', pos);
    const start = Math.min(pos + Math.max(0, column - 1), end === -1 ? text.length : end);
    this.ta.focus();
    this.ta.setSelectionRange(start, end === -1 ? text.length : end);
    this.scrollTo(line);
  }

  /** Select a range of offsets (on `line`) and show it. */
  select(start, end, line) {
    this.ta.focus();
    this.ta.setSelectionRange(start, end);
    this.scrollTo(line);
  }

  scrollTo(line) {
    const lh = parseFloat(getComputedStyle(this.ta).lineHeight) || 20;
    this.ta.scrollTop = Math.max(0, (line - 3) * lh);
  }
}

function countLines(s) {
  let n = 1;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

function numbers(from, to) {
  let s = '';
  for (let i = from; i <= to; i++) s += `${i}\n`;
  return s;
}

const editors = Object.fromEntries(EDITORS.map((id) => [id, new Editor(field(id))]));
const byFile = Object.fromEntries(Object.values(editors).map((e) => [e.file, e]));

// ---------------------------------------------------------------- tabs

function selectTab(name, { focus = false, run = true } = {}) {
  tab = name;
  for (const t of TABS) {
    const button = field(`tab-${t}`);
    const on = t === name;
    button.setAttribute('aria-selected', String(on));
    button.tabIndex = on ? 0 : -1;
    field(`panel-${t}`).hidden = !on;
    if (on && focus) button.focus();
  }
  saveState();
  if (run) check();
}

for (const t of TABS) {
  const button = field(`tab-${t}`);
  button.addEventListener('click', () => selectTab(t));
  button.addEventListener('keydown', (e) => {
    const shown = TABS.filter((x) => !field(`tab-${x}`).hidden);
    const i = shown.indexOf(t);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: shown.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    selectTab(shown[(to + shown.length) % shown.length], { focus: true });
  });
}

// ---------------------------------------------------------------- checking

function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

async function check() {
  const which = tab;
  const run = ++runs[which];
  const out = field(`result-${which}`);
  let reply;
  if (which === 'response') {
    if (!editors.expect.value.trim() && !editors.response.value.trim()) return showEmpty(out, 'Write expectations and paste a response, or pick an example.');
    // The CLI checks dates against today; so does the page.
    reply = await checker.call('checkResponse', editors.expect.value, editors.response.value, { today: today() });
  } else if (which === 'trajectory') {
    if (!editors.trace.value.trim() && !editors.assertions.value.trim()) return showEmpty(out, 'Paste a trace and write assertions, or pick an example.');
    reply = await checker.call('checkTrajectory', editors.trace.value, editors.assertions.value);
  } else if (which === 'lint') {
    if (!editors.listing.value.trim()) return showEmpty(out, 'Paste a tools/list answer or a combined listing, or pick an example.');
    if (!(await checker.has('lintListing'))) return showEmpty(out, 'This build has no listing lint.');
    reply = await checker.call('lintListing', editors.listing.value, lintOptions());
  } else if (which === 'scan') {
    if (!editors.surface.value.trim()) return showEmpty(out, 'Paste a tools/list answer, a combined listing or an array of listings, or pick an example.');
    if (!(await checker.has('scanListing'))) return showEmpty(out, 'This build has no scan.');
    reply = await checker.call('scanListing', editors.surface.value, scanOptions());
  } else if (which === 'suite') {
    if (!editors.suite.value.trim()) return showEmpty(out, 'Paste a suite file (YAML), or pick an example.');
    reply = await checker.call('validateSuite', editors.suite.value, 'suite.yaml', { forClient: suiteClient.checked });
  } else {
    if (!editors.capture.value.trim()) return showEmpty(out, 'Drop, choose or paste a capture file, or pick an example.');
    if (!(await checker.has('checkCapture'))) return showEmpty(out, 'This build has no capture checks.');
    reply = await checker.call('checkCapture', editors.capture.value);
  }
  if (run !== runs[which]) return; // a newer edit is on its way
  markEditors(which, reply.ok ? [] : reply.error.diagnostics);
  clear(out);
  if (!reply.ok) {
    out.append(renderError(reply.error));
    if (which === 'lint' || which === 'scan') markJsonError(editors[which === 'lint' ? 'listing' : 'surface'], reply.error.message);
  } else if (which === 'suite') {
    markEditors('suite', reply.value.diagnostics);
    out.append(renderValidation(reply.value));
  } else if (which === 'scan') {
    const { placeScanFindings, renderScan } = await import('./scan.js');
    if (run !== runs[which]) return;
    const { places, marks } = placeScanFindings(editors.surface.value, reply.value.findings);
    editors.surface.mark(marks);
    out.append(renderScan(reply.value, editors.surface, places));
  } else if (which === 'lint') {
    const { placeFindings, renderLint } = await import('./lint.js');
    if (run !== runs[which]) return;
    const { places, marks } = placeFindings(editors.listing.value, reply.value.findings);
    editors.listing.mark(marks);
    out.append(renderLint(reply.value, editors.listing, places));
  } else if (which === 'capture') {
    // The exchanges to show, read by the core as the report was; each
    // message as the text the capture holds (what the server sent), not
    // re-serialized.
    const timeline = await checker.call('captureTimeline', editors.capture.value, { verbatim: true });
    if (run !== runs[which]) return;
    out.append((await import('./capture.js')).renderCapture(reply.value, timeline.ok ? timeline.value : []));
  } else if (which === 'response') {
    const { placeReads } = await import('./reads.js');
    if (run !== runs[which]) return;
    const { places, marks } = placeReads(editors.response.value, editors.expect.value, reply.value.checks);
    editors.response.mark(marks);
    out.append(renderTest(reply.value, editors.expect, { editor: editors.response, places }), copyAsTest());
  } else {
    out.append(renderTest(reply.value, editors.assertions));
  }
  out.dataset.ms = String(Math.round(reply.ms ?? 0));
  document.body.dataset.checked = String((Number(document.body.dataset.checked) || 0) + 1);
}

function showEmpty(out, text) {
  markEditors(tab, []);
  clear(out);
  out.append(el('p', { class: 'dim empty' }, text));
}

function markEditors(which, diagnostics) {
  const names = { response: ['expect', 'response'], trajectory: ['trace', 'assertions'], capture: ['capture'], lint: ['listing'], scan: ['surface'], suite: ['suite'] }[which];
  for (const name of names) {
    const ed = editors[name];
    const bad = new Map();
    for (const d of diagnostics) if (d.file === ed.file && d.line) bad.set(d.line, d.message);
    ed.mark(bad);
  }
}

// ---------------------------------------------------------------- lint input

const strictBox = field('lint-strict');
const skipInput = field('lint-skip');

/** lintListing's options from the checkbox and the comma-separated codes. */
function lintOptions() {
  const skip_rules = skipInput.value.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase());
  return { skip_rules, strict: strictBox.checked };
}

/** A listing that is not JSON: the core names the line; mark it. */
function markJsonError(editor, message) {
  const at = /\(line (\d+), column \d+\)$/.exec(message);
  editor.mark(at ? new Map([[Number(at[1]), message]]) : new Map());
}

// ---------------------------------------------------------------- scan input

const failOnSelect = field('scan-fail-on');
const scanSkipInput = field('scan-skip');

/** scanListing's options from the select and the comma-separated codes. */
function scanOptions() {
  const skip_rules = scanSkipInput.value.split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase());
  return { skip_rules, fail_on: failOnSelect.value };
}

let timer;
function schedule() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    saveState();
    check();
  }, 150);
}
for (const ed of Object.values(editors)) ed.ta.addEventListener('input', schedule);
requestField.addEventListener('input', () => saveState());
suiteClient.addEventListener('change', schedule);
strictBox.addEventListener('change', schedule);
skipInput.addEventListener('input', schedule);
failOnSelect.addEventListener('change', schedule);
scanSkipInput.addEventListener('input', schedule);

document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    check();
  }
});

// ---------------------------------------------------------------- results

const STATUS = { pass: 'PASS', fail: 'FAIL', error: 'ERROR', skip: 'SKIP' };
const fmt = (x) => (typeof x === 'number' ? x.toFixed(3) : '');

/** A test result: the verdict, a table of checks and the scores; with
 * `reads` (the response tab), each check's target links to what it read in
 * the response. */
function renderTest(t, sourceEditor, reads = null) {
  const box = el('div', { class: 'test' });
  box.append(
    el('p', { class: 'verdict-line' },
      el('span', { id: 'verdict', class: `badge ${t.status}`, 'data-status': t.status }, STATUS[t.status] ?? t.status),
      ' ',
      t.checks.length === 1 ? '1 check' : `${t.checks.length} checks`,
      t.score !== undefined ? el('span', { class: 'score' }, ` · score ${fmt(t.score)}`, t.threshold !== undefined ? ` (threshold ${fmt(t.threshold)})` : '') : null),
  );
  if (t.message) box.append(el('p', { class: 'message' }, t.message));
  if (t.checks.length) {
    const rows = t.checks.map((c, i) =>
      el('tr', { class: `check ${c.status}`, 'data-status': c.status },
        el('td', { 'data-label': 'status' }, el('span', { class: `badge ${c.status}` }, STATUS[c.status])),
        el('td', { 'data-label': 'check' },
          c.line && sourceEditor
            ? el('button', { type: 'button', class: 'link', title: `line ${c.line}`, onclick: () => sourceEditor.goto(c.line) }, c.name || c.matcher)
            : c.name || c.matcher,
          c.set ? el('span', { class: 'dim' }, ` [${c.set}]`) : null),
        el('td', { 'data-label': 'target' }, readLink(c, i, reads)),
        el('td', { 'data-label': 'expected' }, c.expected),
        el('td', { 'data-label': 'actual' }, el('span', { class: 'actual' }, c.actual)),
        el('td', { 'data-label': 'reason', class: 'reason' }, c.reason ?? ''),
        el('td', { 'data-label': 'weight', class: 'num' }, c.weight === 1 ? '' : fmt(c.weight))));
    box.append(
      el('table', { class: 'checks' },
        el('thead', {}, el('tr', {}, ...['status', 'check', 'target', 'expected', 'actual', 'reason', 'weight'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, rows)),
    );
  }
  if (t.sets?.length) {
    box.append(el('h2', {}, 'Assert-sets'),
      el('table', { class: 'small' },
        el('thead', {}, el('tr', {}, ...['set', 'score', 'threshold', 'weight', 'passed'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, t.sets.map((s) => el('tr', { class: s.passed ? 'pass' : 'fail' },
          el('td', {}, s.name), el('td', { class: 'num' }, fmt(s.score)), el('td', { class: 'num' }, fmt(s.threshold)),
          el('td', { class: 'num' }, fmt(s.weight)), el('td', {}, s.passed ? 'yes' : 'no'))))));
  }
  if (t.derived_metrics?.length) {
    box.append(el('h2', {}, 'Derived metrics'),
      el('table', { class: 'small' },
        el('thead', {}, el('tr', {}, ...['metric', 'value', 'threshold', 'passed', 'unresolved'].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, t.derived_metrics.map((m) => el('tr', { class: m.passed === false ? 'fail' : '' },
          el('td', {}, m.name), el('td', { class: 'num' }, fmt(m.value)), el('td', { class: 'num' }, fmt(m.threshold)),
          el('td', {}, m.passed === undefined ? '' : m.passed ? 'yes' : 'no'), el('td', {}, (m.unresolved ?? []).join(', ')))))));
  }
  for (const w of t.warnings ?? []) box.append(el('p', { class: 'warn' }, `warning: ${w}`));
  return box;
}

/** A check's target; in the response tab, a link that selects what it
 * read (every place, one after another on each click). */
function readLink(c, i, reads) {
  const places = reads?.places[i] ?? [];
  if (!places.length) return el('code', {}, c.target);
  let next = 0;
  return el('button', {
    type: 'button',
    class: 'link read',
    title: places.length === 1 ? `line ${places[0].line} of the response` : `${places.length} places in the response`,
    onclick: () => {
      const at = places[next];
      next = (next + 1) % places.length;
      reads.editor.select(at.start, at.end, at.line);
    },
  }, el('code', {}, c.target));
}

/** "Copy as test": a button, and where the test is shown. */
function copyAsTest() {
  const box = el('div', { class: 'copy-test' });
  const status = el('p', { class: 'dim', role: 'status' });
  const button = el('button', { type: 'button', id: 'copy-test', onclick: () => makeTest(box, status) }, 'Copy as test');
  box.append(el('h2', {}, 'As a suite test'), el('p', {}, button, ' ', el('span', { class: 'dim' }, 'the YAML test that sends the request and makes these checks (for runSuite; add a server block for mcpcheck run)')), status);
  return box;
}

async function makeTest(box, status) {
  box.querySelector('pre')?.remove();
  let yaml;
  try {
    const { readRequest, testYaml } = await import('./copytest.js');
    yaml = testYaml(editors.expect.value, readRequest(requestField.value));
  } catch (e) {
    status.textContent = e.message;
    return;
  }
  // The core loads it as runSuite would: what is offered is a valid test.
  const v = await checker.call('validateSuite', yaml, 'test.yaml', { forClient: true });
  if (!v.ok || !v.value.ok) {
    status.textContent = `the test does not load: ${v.ok ? v.value.rendered : v.error.message}`;
    return;
  }
  box.append(el('pre', { id: 'test-yaml', tabindex: '0' }, yaml));
  try {
    await navigator.clipboard.writeText(yaml);
    status.textContent = 'test copied';
  } catch {
    status.textContent = 'select the test below to copy it';
  }
}

/** What validateSuite found: the tests, or every problem at its line. */
function renderValidation(v) {
  const box = el('div', { class: 'suite-report' });
  const status = v.ok ? 'pass' : 'invalid';
  const errors = v.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = v.diagnostics.length - errors;
  box.append(el('p', { class: 'verdict-line' },
    el('span', { id: 'verdict', class: `badge ${status}`, 'data-status': status }, v.ok ? 'VALID' : 'INVALID'),
    ` ${v.tests.length === 1 ? '1 test' : `${v.tests.length} tests`}, ${errors === 1 ? '1 error' : `${errors} errors`}, ${warnings === 1 ? '1 warning' : `${warnings} warnings`}`));
  if (v.diagnostics.length) {
    box.append(diagnosticList(v.diagnostics));
    box.append(el('pre', { class: 'diag', tabindex: '0' }, v.rendered));
  }
  if (v.tests.length) {
    box.append(el('h2', {}, 'Tests'), el('ol', { class: 'suite-tests' }, v.tests.map((t) =>
      el('li', {}, el('button', { type: 'button', class: 'link', onclick: () => editors.suite.goto(t.line) }, t.name), el('span', { class: 'dim' }, ` line ${t.line}`)))));
  }
  return box;
}

function diagnosticList(diagnostics) {
  const list = el('ul', { class: 'diagnostics' });
  for (const d of diagnostics) {
    const ed = byFile[d.file];
    const where = d.line ? `${d.file}:${d.line}:${d.column}` : d.file;
    list.append(el('li', { class: d.severity },
      ed && d.line
        ? el('button', { type: 'button', class: 'link', onclick: () => ed.goto(d.line, d.column) }, where)
        : where,
      ` ${d.severity}: ${d.message}`,
      d.hint ? el('span', { class: 'hint' }, ` — hint: ${d.hint}`) : null));
  }
  return list;
}

function renderError(err) {
  const box = el('div', { class: 'load-error' });
  box.append(el('p', { class: 'verdict-line' }, el('span', { id: 'verdict', class: 'badge invalid', 'data-status': 'invalid' }, 'INVALID'), ' the input could not be read'));
  // A long excerpt scrolls: it takes the keyboard's focus so it can be read.
  if (!err.diagnostics.length) {
    box.append(el('pre', { class: 'diag', tabindex: '0' }, err.message));
    return box;
  }
  box.append(diagnosticList(err.diagnostics));
  if (err.rendered) box.append(el('pre', { class: 'diag', tabindex: '0' }, err.rendered));
  return box;
}

// ---------------------------------------------------------------- capture input

const drop = field('capture-drop');
async function loadCaptureFile(file) {
  if (!file) return;
  editors.capture.value = await file.text();
  saveState();
  check();
}
field('capture-file').addEventListener('change', (e) => loadCaptureFile(e.target.files[0]));
drop.addEventListener('dragover', (e) => {
  e.preventDefault();
  drop.classList.add('over');
});
drop.addEventListener('dragleave', () => drop.classList.remove('over'));
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  drop.classList.remove('over');
  loadCaptureFile(e.dataTransfer.files[0]);
});

// ---------------------------------------------------------------- MCP Inspector import

const inspectorText = field('inspector-text');
const inspectorEntry = field('inspector-entry');
const inspectorStatus = field('inspector-status');
let entries = [];

/** Read a pasted or chosen Inspector history and list its entries. */
async function readInspector(text) {
  const { readHistory } = await import('./inspector.js');
  clear(inspectorEntry);
  try {
    entries = readHistory(text);
  } catch (e) {
    entries = [];
    inspectorEntry.disabled = true;
    inspectorEntry.append(el('option', { value: '' }, 'no history read'));
    inspectorStatus.textContent = e.message;
    return;
  }
  inspectorEntry.disabled = false;
  inspectorEntry.append(el('option', { value: '' }, 'choose…'), ...entries.map((h, i) => el('option', { value: String(i) }, h.label)));
  inspectorStatus.textContent = `${entries.length === 1 ? '1 entry' : `${entries.length} entries`}: choose the one to check`;
}

async function useEntry(i) {
  const entry = entries[i];
  if (!entry) return;
  const { responseText } = await import('./inspector.js');
  let text;
  try {
    text = responseText(entry);
  } catch (e) {
    inspectorStatus.textContent = e.message;
    return;
  }
  editors.response.value = text;
  requestField.value = JSON.stringify({ method: entry.method, params: entry.request.params ?? {} });
  const { methodOf } = await import('./reads.js');
  const checked = methodOf(editors.expect.value);
  inspectorStatus.textContent = checked === entry.method
    ? `entry ${entry.n} (${entry.method}) is in the response`
    : `entry ${entry.n} answers ${entry.method}, and the expectations check a ${checked} answer: set \`method: ${entry.method}\` in them`;
  saveState();
  check();
}

inspectorText.addEventListener('input', () => readInspector(inspectorText.value));
field('inspector-file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  inspectorText.value = await file.text();
  readInspector(inspectorText.value);
});
inspectorEntry.addEventListener('change', () => useEntry(Number(inspectorEntry.value)));

// ---------------------------------------------------------------- examples

const select = field('examples');
for (const group of TABS) {
  const items = EXAMPLES.filter((x) => x.tab === group);
  if (!items.length) continue;
  const og = el('optgroup', { label: field(`tab-${group}`).textContent });
  for (const x of items) og.append(el('option', { value: x.id }, x.title));
  select.append(og);
}
select.addEventListener('change', () => {
  const x = EXAMPLES.find((e) => e.id === select.value);
  // Back to "choose…", so the same example can be picked again after an edit.
  select.value = '';
  if (!x) return;
  for (const [k, v] of Object.entries(x.fields)) editors[k].value = v;
  if (x.tab === 'response') requestField.value = x.request ? JSON.stringify(x.request) : '';
  if (x.options && x.tab === 'lint') setLintOptions(x.options);
  if (x.options && x.tab === 'scan') setScanOptions(x.options);
  if (x.tab === 'suite') suiteClient.checked = x.options?.forClient === true;
  selectTab(x.tab);
});

function setLintOptions({ strict = false, skip = '' } = {}) {
  strictBox.checked = Boolean(strict);
  skipInput.value = typeof skip === 'string' ? skip : '';
}

function setScanOptions({ failOn = 'high', skip = '' } = {}) {
  failOnSelect.value = ['high', 'medium', 'low', 'info'].includes(failOn) ? failOn : 'high';
  scanSkipInput.value = typeof skip === 'string' ? skip : '';
}

// ---------------------------------------------------------------- state in the URL

// A link carries the tab and every editor's text (compressed). When that is
// longer than browsers open reliably, there is no link: the address bar
// keeps none, and "Copy link" says which editor is too large.
const LINK_LIMIT = 60000;
const NAMES = { expect: 'the expectations', response: 'the response', capture: 'the capture', trace: 'the trace', assertions: 'the assertions', listing: 'the listing', surface: 'the scanned listing', suite: 'the suite', request: 'the request' };
let tooLong = null;
let saving = Promise.resolve();
function saveState() {
  const state = currentState();
  saving = saving.then(async () => {
    const frag = await encodeState(state);
    if (frag.length > LINK_LIMIT) {
      const largest = [...EDITORS, 'request'].filter((k) => state[k]).sort((a, b) => state[b].length - state[a].length)[0];
      tooLong = `${NAMES[largest] ?? largest} is too large for a link`;
      if (location.hash) history.replaceState(null, '', location.pathname + location.search);
      field('share-status').textContent = tooLong;
      return;
    }
    tooLong = null;
    if (location.hash.slice(1) !== frag) history.replaceState(null, '', `#${frag}`);
    field('share-status').textContent = '';
  });
  return saving;
}

async function loadState() {
  const state = await decodeState(location.hash.slice(1));
  if (!state) return false;
  for (const k of EDITORS) editors[k].value = typeof state[k] === 'string' ? state[k] : '';
  setLintOptions({ strict: state.strict, skip: state.skip });
  setScanOptions({ failOn: state.failOn, skip: state.scanSkip });
  requestField.value = typeof state.request === 'string' ? state.request : '';
  suiteClient.checked = state.forClient === true;
  selectTab(TABS.includes(state.tab) ? state.tab : 'response', { run: false });
  return true;
}

window.addEventListener('hashchange', async () => {
  const frag = location.hash.slice(1);
  const current = await encodeState(currentState());
  if (frag !== current && (await loadState())) check();
});

function currentState() {
  const state = { tab };
  for (const k of EDITORS) if (editors[k].value) state[k] = editors[k].value;
  // The lint tab's options, only when set: older links stay what they were.
  if (strictBox.checked) state.strict = true;
  if (skipInput.value) state.skip = skipInput.value;
  if (failOnSelect.value !== 'high') state.failOn = failOnSelect.value;
  if (scanSkipInput.value) state.scanSkip = scanSkipInput.value;
  if (requestField.value) state.request = requestField.value;
  if (suiteClient.checked) state.forClient = true;
  return state;
}

field('share').addEventListener('click', async () => {
  await saveState();
  if (tooLong) {
    field('share-status').textContent = `no link: ${tooLong} (browsers cut links this long); share the text instead`;
    return;
  }
  try {
    await navigator.clipboard.writeText(location.href);
    field('share-status').textContent = 'link copied';
  } catch {
    field('share-status').textContent = 'copy the address bar to share';
  }
});

// ---------------------------------------------------------------- start

/** Kilobytes, for people. */
const kb = (bytes) => `${Math.round(bytes / 1024).toLocaleString('en')} KB`;

checker.ready.then((info) => {
  field('loading').hidden = true;
  // What the checker took to download, as this browser fetched it: the
  // bytes on the wire (compressed, when the server sends it so), and its
  // size unpacked.
  const d = info.download;
  const wire = d && (d.transferSize || d.encodedBodySize);
  field('version').textContent = `v${info.version}${wire ? ` · checker ${kb(wire)} downloaded (${kb(d.decodedBodySize)} unpacked)` : ''}`;
  // A build without capture checks shows no capture tab.
  if (!info.ops.includes('checkCapture')) field('tab-capture').hidden = true;
  if (!info.ops.includes('lintListing')) field('tab-lint').hidden = true;
  if (!info.ops.includes('scanListing')) field('tab-scan').hidden = true;
  if (!info.ops.includes('validateSuite')) field('tab-suite').hidden = true;
});

checker.ready.catch((e) => {
  const line = field('loading');
  line.classList.add('failed');
  line.textContent = e.message;
});

if (!(await loadState())) {
  const first = EXAMPLES.find((x) => x.tab === 'response');
  for (const [k, v] of Object.entries(first.fields)) editors[k].value = v;
  selectTab('response', { run: false });
}
check();
