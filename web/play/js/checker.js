// The page's side of the worker: calls by name, replies matched by id, and a
// time limit. A call that runs past the limit terminates the worker (the only
// way to stop a running WebAssembly call) and a fresh one takes its place.

const LIMIT_MS = 15000;

export class Checker {
  constructor(url) {
    this.url = url;
    this.next = 0;
    this.start();
  }

  start() {
    this.pending = new Map();
    this.worker = new Worker(this.url, { type: 'module' });
    this.ready = new Promise((resolve, reject) => {
      this.onReady = resolve;
      this.onFail = reject;
    });
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.failed) {
        this.onFail(new Error(m.failed));
        this.failAll(m.failed);
        return;
      }
      if (m.ready) {
        this.ops = new Set(m.ops);
        this.onReady(m);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      p.resolve(m);
    };
    this.worker.onerror = (e) => {
      const message = `the checker could not start: ${e.message || 'worker error'}`;
      this.onFail(new Error(message));
      this.failAll(message);
    };
  }

  failAll(message) {
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, error: { message, diagnostics: [] } });
    }
    this.pending.clear();
  }

  async has(op) {
    await this.ready;
    return this.ops.has(op);
  }

  /** Resolves to `{ok: true, value, ms}` or `{ok: false, error}`; never rejects. */
  async call(op, ...args) {
    try {
      await this.ready;
    } catch (e) {
      return { ok: false, error: { message: e.message, diagnostics: [] } };
    }
    const id = ++this.next;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.worker.terminate();
        this.failAll(`stopped: the check ran longer than ${LIMIT_MS / 1000} s`);
        this.start();
      }, LIMIT_MS);
      this.pending.set(id, { resolve, timer });
      this.worker.postMessage({ id, op, args });
    });
  }
}
