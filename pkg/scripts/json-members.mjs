// For the tests that feed the shared vectors: the raw JSON text of each
// member of a top-level object, so a case's input reaches the package exactly
// as the file holds it (JSON.parse would turn 1.0 into 1 and reorder
// integer-like keys).

/** The raw JSON text of each member of a top-level object. */
export function members(text) {
  const out = {};
  let i = text.indexOf('{') + 1;
  const ws = () => {
    while (/\s/.test(text[i])) i++;
  };
  const str = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return text.slice(start, i);
  };
  for (;;) {
    ws();
    if (text[i] === '}') return out;
    const key = JSON.parse(str());
    ws();
    i++; // ':'
    ws();
    const start = i;
    let depth = 0;
    while (i < text.length) {
      const ch = text[i];
      if (ch === '"') {
        str();
        continue;
      }
      if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) break;
      i++;
    }
    out[key] = text.slice(start, i).trim();
    if (text[i] === ',') i++;
  }
}
