// "Copy as test": the suite test (YAML) that sends the request and makes the
// checks of the response tab: the request from the Request field (an
// Inspector import fills it), the expectations as they are written. The
// page then has the core load the test (validateSuite, for runSuite: no
// server block) before it is offered; nothing here decides a verdict.

/** The block that sends `method` with `params`, as suite YAML lines (the
 * `expect` key comes after them); throws when a test cannot send it. */
function blockLines(method, params) {
  const p = params ?? {};
  const json = (v) => JSON.stringify(v);
  const need = (key) => {
    if (p[key] === undefined) throw new Error(`the request's params have no \`${key}\``);
    return p[key];
  };
  switch (method) {
    case 'tools/call':
      return ['assert:', `  tool: ${json(need('name'))}`, `  args: ${json(p.arguments ?? {})}`];
    case 'prompts/get': {
      const get = { name: need('name') };
      if (p.arguments && Object.keys(p.arguments).length) get.arguments = p.arguments;
      return ['assert_prompts:', `  get: ${json(get)}`];
    }
    case 'prompts/list':
      return ['assert_prompts:', `  list: ${json(p.cursor ? { cursor: p.cursor } : {})}`];
    case 'resources/read':
      return ['assert_resources:', `  read: ${json(need('uri'))}`];
    case 'resources/list':
      return ['assert_resources:', `  list: ${json(p.cursor ? { cursor: p.cursor } : {})}`];
    case 'resources/templates/list':
      return ['assert_resources:', `  templates: ${json(p.cursor ? { cursor: p.cursor } : {})}`];
    case 'completion/complete': {
      const ref = need('ref');
      const lines = ['assert_completion:', `  ref: ${json(ref)}`, `  argument: ${json(need('argument'))}`];
      if (p.context !== undefined) lines.push(`  context: ${json(p.context)}`);
      return lines;
    }
    default:
      throw new Error(`a suite test cannot send ${method}: it sends tools/call, prompts/get, prompts/list, resources/read, resources/list, resources/templates/list or completion/complete`);
  }
}

/** The request as `{method, params}` from the Request field's text. */
export function readRequest(text) {
  if (!text.trim()) throw new Error('Copy as test needs the request: write it in Request, e.g. {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}');
  let r;
  try {
    r = JSON.parse(text);
  } catch (e) {
    throw new Error(`the request is not JSON: ${e.message}`);
  }
  // A JSON-RPC request envelope is a request too.
  if (r === null || typeof r !== 'object' || typeof r.method !== 'string') {
    throw new Error('the request must be an object with `method` (and `params`)');
  }
  return { method: r.method, params: r.params };
}

const TOP = /^([A-Za-z_][\w-]*)\s*:/;

/**
 * The expectation document's parts: `name`, `method`, `threshold`,
 * `derivedMetrics` and `expect`, each as YAML text starting with its key
 * (the text of a document without `expect` is the expectations themselves).
 * JSON documents are read as JSON; YAML ones by their top-level keys (lines
 * starting at column 0).
 */
function parts(text) {
  try {
    const doc = JSON.parse(text);
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc) && 'expect' in doc) {
      return Object.fromEntries(Object.entries(doc).map(([k, v]) => [k, `${k}: ${JSON.stringify(v)}`]));
    }
    return { expect: `expect: ${JSON.stringify(doc)}` };
  } catch {
    // YAML, below.
  }
  const lines = text.replace(/\s+$/, '').split('\n');
  const wrapped = lines.some((l) => /^expect\s*:/.test(l));
  if (!wrapped) return { expect: `expect:\n${indent(lines.join('\n'), 2)}` };
  const out = {};
  let key = null;
  for (const line of lines) {
    const m = TOP.exec(line);
    if (m) {
      key = m[1];
      out[key] = line;
    } else if (key !== null) {
      out[key] += `\n${line}`;
    } else if (line.trim() && !line.trim().startsWith('#')) {
      throw new Error('the expectations start with an indented line: write them as a YAML mapping whose keys start at column 1');
    }
  }
  return out;
}

const indent = (text, n) => text.split('\n').map((l) => (l ? ' '.repeat(n) + l : l)).join('\n');

/**
 * The YAML test: `name` (the document's, else the method and what it
 * names), the block sending the request with the document's `expect` in it,
 * and its `threshold` and `derivedMetrics` at the test's level.
 */
export function testYaml(expectText, request) {
  const p = parts(expectText);
  if (!p.expect) throw new Error('the expectations have no `expect`');
  for (const k of Object.keys(p)) {
    if (!['name', 'method', 'expect', 'threshold', 'derivedMetrics'].includes(k)) {
      throw new Error(`the expectation document has \`${k}\`, which is not one of name, method, expect, threshold, derivedMetrics`);
    }
  }
  // The checks read the answer as the document's method gives it (the text
  // view differs): the request must be of that method.
  const method = p.method ? /^method\s*:\s*"?([^"\s#]+)/.exec(p.method)?.[1] : 'tools/call';
  if (method !== request.method) {
    throw new Error(`the expectations check a ${method} answer${p.method ? '' : ' (no `method`)'}, and the request is ${request.method}: set \`method: ${request.method}\` in the expectations`);
  }
  const what = request.params?.name ?? request.params?.uri ?? '';
  const name = p.name ?? `name: ${JSON.stringify(`${request.method}${what ? ` ${what}` : ''}`)}`;
  const lines = [name, ...blockLines(request.method, request.params), indent(p.expect, 2)];
  for (const k of ['threshold', 'derivedMetrics']) if (p[k]) lines.push(p[k]);
  return `${lines.join('\n')}\n`;
}
