// Building DOM without HTML parsing: strings always become text nodes.
//
// Shared by the playground (web/play/js/dom.js re-exports it as a module)
// and the HTML report, which loads it as a classic script from file:// (where
// module scripts are refused): it sets `globalThis.mcpcheckDom`.
(function (root) {
  'use strict';

  /** `el('td', {class: 'x', onclick: f}, 'text', child)`. */
  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.firstChild.remove();
  }

  root.mcpcheckDom = { el, clear };
})(globalThis);
