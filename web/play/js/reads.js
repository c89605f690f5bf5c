// What each check read, in the pasted response: a check's `path` (steps
// from the Observation's root, as the core reports them: `['json',
// 'results', '*', 'id']`, `['text']`, `['result', 'isError']`) mapped back to
// the places in the response text it came from (pointer.js finds them).
// The Observation is built by the core; this follows its documented shape
// to show where its views came from, and decides nothing.
import { locate } from './pointer.js';

const MAX_PLACES = 200;
const escape = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');
const isObject = (v) => v !== null && typeof v === 'object';

/** Pointers for `steps` under `base` (value `v` there); `*` spreads over
 * the elements or members there are. A missing step stays in the pointer:
 * it lands on the nearest parent. */
function expand(base, v, steps, out) {
  if (out.length >= MAX_PLACES) return;
  if (!steps.length) {
    out.push(base);
    return;
  }
  const [step, ...rest] = steps;
  if (step === '*') {
    if (Array.isArray(v)) v.forEach((x, i) => expand(`${base}/${i}`, x, rest, out));
    else if (isObject(v)) for (const [k, x] of Object.entries(v)) expand(`${base}/${escape(k)}`, x, rest, out);
    else out.push(base);
    return;
  }
  expand(`${base}/${escape(step)}`, isObject(v) ? v[step] : undefined, rest, out);
}

/** Where the text view of `method`'s result comes from (see the core's
 * observation module): the text blocks, messages or contents, else the
 * whole result. */
function textSources(method, base, result) {
  const out = [];
  if (!isObject(result)) return [base];
  if (method === 'tools/call') {
    (Array.isArray(result.content) ? result.content : []).forEach((b, i) => {
      if (b?.type === 'text') out.push(`${base}/content/${i}/text`);
    });
  } else if (method === 'prompts/get') {
    if (result.description) out.push(`${base}/description`);
    (Array.isArray(result.messages) ? result.messages : []).forEach((m, i) => out.push(`${base}/messages/${i}/content`));
  } else if (method === 'resources/read') {
    (Array.isArray(result.contents) ? result.contents : []).forEach((c, i) => out.push(`${base}/contents/${i}`));
  } else {
    out.push(base);
  }
  return out.length ? out : [base];
}

/** The pointers a check with `path` read, in a response document `doc`
 * checked as `method`'s answer. */
export function pointersOf(doc, method, path) {
  if (!Array.isArray(path) || !path.length || !isObject(doc)) return [];
  const has = (k) => Object.prototype.hasOwnProperty.call(doc, k);
  const envelope = has('jsonrpc') || (has('id') && (has('result') || has('error')));
  const observation = !envelope && (has('result') || has('error')) && ['text', 'json', 'notifications', 'duration_ms'].some(has);
  const base = envelope || observation ? '/result' : '';
  const result = envelope || observation ? doc.result : doc;
  const [head, ...rest] = path;
  const out = [];
  switch (head) {
    case 'result':
      expand(base, result, rest, out);
      break;
    case 'error':
    case 'notifications':
    case 'duration_ms':
      if (has(head)) expand(`/${head}`, doc[head], rest, out);
      break;
    case 'text':
      if (observation && has('text')) out.push('/text');
      else out.push(...textSources(method, base, result));
      break;
    case 'json':
      if (observation && has('json')) expand('/json', doc.json, rest, out);
      else if (method === 'tools/call' && isObject(result) && isObject(result.structuredContent)) {
        expand(`${base}/structuredContent`, result.structuredContent, rest, out);
      } else out.push(...textSources(method, base, result));
      break;
    default:
      break;
  }
  return out.slice(0, MAX_PLACES);
}

/** The method the expectations check (their `method`, default tools/call). */
export function methodOf(expectText) {
  try {
    const doc = JSON.parse(expectText);
    if (isObject(doc) && typeof doc.method === 'string') return doc.method;
  } catch {
    const m = /^method\s*:\s*["']?([^"'\s#]+)/m.exec(expectText);
    if (m) return m[1];
  }
  return 'tools/call';
}

/**
 * For each check, the places in `responseText` it read (`[{line, start,
 * end, exact}]`), and the editor's marks: a Map of line → `{title,
 * severity}`, `read-pass` or `read-fail` (a failing check wins the line).
 */
export function placeReads(responseText, expectText, checks) {
  let doc;
  try {
    doc = JSON.parse(responseText);
  } catch {
    return { places: checks.map(() => []), marks: new Map() };
  }
  const method = methodOf(expectText);
  const lists = checks.map((c) => pointersOf(doc, method, c.path));
  const flat = locate(responseText, lists.flat());
  let k = 0;
  const places = lists.map((l) => l.map(() => flat[k++]).filter(Boolean));
  const marks = new Map();
  checks.forEach((c, i) => {
    const failing = c.status !== 'pass';
    for (const at of places[i]) {
      const line = `${c.name}: ${c.status}`;
      const had = marks.get(at.line);
      if (!had) marks.set(at.line, { title: line, severity: failing ? 'read-fail' : 'read-pass' });
      else {
        if (!had.title.split('\n').includes(line)) had.title += `\n${line}`;
        if (failing) had.severity = 'read-fail';
      }
    }
  });
  return { places, marks };
}
