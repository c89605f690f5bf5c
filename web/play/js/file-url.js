// A classic script, which browsers still run from a file:// URL where they
// refuse the page's module scripts and its worker: says why the page cannot
// work from there and what to do, in place of the loading line.
'use strict';
if (location.protocol === 'file:') {
  document.addEventListener('DOMContentLoaded', () => {
    const line = document.getElementById('loading');
    if (!line) return;
    line.className = 'loading failed';
    line.textContent = 'The playground cannot run from a file:// URL: browsers do not load its worker or its WebAssembly from files. '
      + 'Serve the folder instead, e.g. `python3 -m http.server -d dist` and open http://localhost:8000/.';
  });
}
