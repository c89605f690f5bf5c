// Reading what the MCP Inspector keeps of a session: its request history, a
// list of `{request, response}` entries where each side is the JSON text of
// the message (the Inspector stores them stringified) or, once copied out,
// the message itself. The request is `{method, params}`; the response is the
// result, or `{error: "message"}` when the call failed. Only the page's
// editors are filled from it; every verdict is still the core's.

/** What `v` is, for messages. */
function kind(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** A side of an entry as a value: JSON text is parsed, an object kept. */
function side(v, what, n) {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch (e) {
    throw new Error(`entry ${n}: its ${what} is text that is not JSON (${e.message})`);
  }
}

/**
 * The entries of a history given as JSON text: `[{request, response?}]`, an
 * object holding such a list under `requestHistory` or `history`, or one
 * entry. Each entry: `{n, method, label, request, response}` (`response`
 * null when the entry has none). Throws an Error saying what was given and
 * what was expected.
 */
export function readHistory(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`the history is not JSON: ${e.message}`);
  }
  let list = doc;
  if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) {
    if (Array.isArray(doc.requestHistory)) list = doc.requestHistory;
    else if (Array.isArray(doc.history)) list = doc.history;
    else if ('request' in doc) list = [doc];
  }
  if (!Array.isArray(list)) {
    throw new Error(
      `${kind(doc)} was given; expected the Inspector's history: a list of {request, response} entries (or one entry)`,
    );
  }
  if (!list.length) throw new Error('the history is empty: it has no entry to check');
  return list.map((e, i) => {
    const n = i + 1;
    if (e === null || typeof e !== 'object' || !('request' in e)) {
      throw new Error(`entry ${n} is ${kind(e)} without \`request\`; expected {request, response}`);
    }
    const request = side(e.request, 'request', n);
    if (request === null || typeof request !== 'object' || typeof request.method !== 'string') {
      throw new Error(`entry ${n}: its request has no \`method\`; expected {method, params}`);
    }
    const response = e.response === undefined || e.response === null ? null : side(e.response, 'response', n);
    const what = request.params?.name ?? request.params?.uri ?? '';
    return { n, method: request.method, label: `${n}. ${request.method}${what ? ` ${what}` : ''}`, request, response };
  });
}

/**
 * The response editor's text for an entry. A failed call is kept by the
 * Inspector as `{error: "message"}`: the SDK's message of a JSON-RPC error
 * ("MCP error -32601: …") becomes that error response, so the checks see
 * an error, not a result; any other failure (a timeout, a closed
 * connection) got no answer at all, and there is nothing to check.
 */
export function responseText(entry) {
  const r = entry.response;
  if (r === null) throw new Error(`entry ${entry.n} has no response`);
  if (typeof r === 'object' && !Array.isArray(r) && Object.keys(r).length === 1 && typeof r.error === 'string') {
    const m = /^MCP error (-?\d+): ([\s\S]*)$/.exec(r.error);
    if (!m) throw new Error(`entry ${entry.n} got no answer: the call failed in the Inspector (${r.error})`);
    return JSON.stringify({ jsonrpc: '2.0', id: entry.n, error: { code: Number(m[1]), message: m[2] } }, null, 2);
  }
  return JSON.stringify(r, null, 2);
}
