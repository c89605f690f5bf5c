// RFC 6901 JSON pointers resolved to places in JSON text: where a lint
// finding's `field` is in what was pasted. A small tokenizer walks the text
// once and keeps, for each value, where it starts and ends (and, for an
// object member, where its key starts); a pointer then walks that tree. A
// pointer whose last segments do not exist (a missing `description`) lands
// on the nearest value that does, marked as not exact. Nothing here decides
// a finding: the core does; this only says where to show it.
//
// Shared by the playground (web/play/js/pointer.js re-exports it as a module)
// and the HTML report (a classic script there): it sets
// `globalThis.mcpcheckPointer`.
(function (root) {
  'use strict';

  const WS = new Set([' ', '\t', '\n', '\r']);

  class Scanner {
    constructor(text) {
      this.s = text;
      this.i = 0;
    }

    fail(what) {
      throw new SyntaxError(`${what} at offset ${this.i}`);
    }

    skip() {
      while (this.i < this.s.length && WS.has(this.s[this.i])) this.i++;
    }

    /** The string token at the cursor: its decoded text. */
    string() {
      const start = this.i;
      if (this.s[this.i] !== '"') this.fail('expected a string');
      this.i++;
      while (this.i < this.s.length) {
        const c = this.s[this.i];
        if (c === '\\') this.i += 2;
        else if (c === '"') break;
        else this.i++;
      }
      if (this.i >= this.s.length) this.fail('unterminated string');
      this.i++;
      return JSON.parse(this.s.slice(start, this.i));
    }

    /** The value at the cursor: `{start, end, members | items}`. */
    value() {
      this.skip();
      const start = this.i;
      const c = this.s[this.i];
      if (c === '{') {
        this.i++;
        const members = [];
        this.skip();
        if (this.s[this.i] === '}') {
          this.i++;
        } else {
          for (;;) {
            this.skip();
            const keyStart = this.i;
            const key = this.string();
            this.skip();
            if (this.s[this.i] !== ':') this.fail('expected :');
            this.i++;
            const node = this.value();
            node.keyStart = keyStart;
            members.push([key, node]);
            this.skip();
            if (this.s[this.i] === ',') this.i++;
            else if (this.s[this.i] === '}') {
              this.i++;
              break;
            } else this.fail('expected , or }');
          }
        }
        return { start, end: this.i, members };
      }
      if (c === '[') {
        this.i++;
        const items = [];
        this.skip();
        if (this.s[this.i] === ']') {
          this.i++;
        } else {
          for (;;) {
            items.push(this.value());
            this.skip();
            if (this.s[this.i] === ',') this.i++;
            else if (this.s[this.i] === ']') {
              this.i++;
              break;
            } else this.fail('expected , or ]');
          }
        }
        return { start, end: this.i, items };
      }
      if (c === '"') {
        this.string();
        return { start, end: this.i };
      }
      // A number, true, false or null: up to the next delimiter.
      while (this.i < this.s.length && !WS.has(this.s[this.i]) && !',]}'.includes(this.s[this.i])) this.i++;
      if (this.i === start) this.fail('expected a value');
      return { start, end: this.i };
    }
  }

  /** The tree of a JSON text, or null when the text is not JSON. */
  function parseTree(text) {
    try {
      const sc = new Scanner(text);
      const root = sc.value();
      sc.skip();
      return sc.i === text.length ? root : null;
    } catch {
      return null;
    }
  }

  /** A pointer's reference tokens: `/a~1b/0` → `['a/b', '0']`. */
  function segments(pointer) {
    if (pointer === '') return [];
    if (!pointer.startsWith('/')) return null;
    return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  }

  function child(node, token) {
    if (node.members) {
      // The last of duplicate keys, as JSON parsers keep it.
      for (let k = node.members.length - 1; k >= 0; k--) if (node.members[k][0] === token) return node.members[k][1];
      return null;
    }
    if (node.items && /^(0|[1-9][0-9]*)$/.test(token)) return node.items[Number(token)] ?? null;
    return null;
  }

  /**
   * Where a pointer lands in the text the tree was read from:
   * `{start, end, exact}` as offsets (a member's range starts at its key), or
   * null when the pointer is malformed. When a segment does not exist, the
   * nearest existing parent is returned with `exact: false`.
   */
  function resolve(tree, pointer) {
    const tokens = segments(pointer);
    if (!tree || !tokens) return null;
    let node = tree;
    for (const token of tokens) {
      const next = child(node, token);
      if (!next) return { start: node.keyStart ?? node.start, end: node.end, exact: false };
      node = next;
    }
    return { start: node.keyStart ?? node.start, end: node.end, exact: true };
  }

  /** 1-based line of an offset. */
  function lineOf(text, offset) {
    let line = 1;
    for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
    return line;
  }

  /** Each pointer's place in `text`: `{line, start, end, exact}` or null. */
  function locate(text, pointers) {
    const tree = parseTree(text);
    return pointers.map((p) => {
      const at = resolve(tree, p);
      return at && { ...at, line: lineOf(text, at.start) };
    });
  }

  /**
   * Like {@link locate}, and each place also has `valueStart` (where the value
   * itself starts, after its key) and `lineOf(offset)` for offsets inside it.
   */
  function locateValues(text, pointers) {
    const tree = parseTree(text);
    const lineAt = (offset) => lineOf(text, offset);
    return pointers.map((p) => {
      const tokens = segments(p);
      if (!tree || !tokens) return null;
      let node = tree;
      let exact = true;
      for (const token of tokens) {
        const next = child(node, token);
        if (!next) {
          exact = false;
          break;
        }
        node = next;
      }
      const start = node.keyStart ?? node.start;
      return { start, end: node.end, exact, valueStart: node.start, line: lineAt(start), lineOf: lineAt };
    });
  }

  root.mcpcheckPointer = { parseTree, segments, resolve, lineOf, locate, locateValues };
})(globalThis);
