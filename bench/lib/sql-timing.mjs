// A diagnostic preload for a Chute process: sums the time of every SQL text that better-sqlite3 runs on the thread it
// is loaded in (the main thread: the event loop's share), and on SIGUSR2 writes the totals, largest first, to
// <tmpdir>/chute-sql-timing-<pid>.txt (count, microseconds per run, milliseconds in all, the SQL) and starts again.
//   BENCH_CHUTE_NODE_ARGS="--import ./bench/lib/sql-timing.mjs" (absolute path), load it, `kill -USR2 <pid>`.
// Not for production: it wraps every statement call.
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const totals = new Map();
const add = (what, ns) => {
  const total = totals.get(what) ?? { runs: 0, ns: 0n };
  total.runs++;
  total.ns += ns;
  totals.set(what, total);
};
const timed = (what, run) => {
  const start = process.hrtime.bigint();
  try {
    return run();
  } finally {
    add(what, process.hrtime.bigint() - start);
  }
};

const probe = new Database(':memory:');
const statement = Object.getPrototypeOf(probe.prepare('select 1'));
probe.close();
for (const method of ['run', 'get', 'all']) {
  const original = statement[method];
  statement[method] = function (...args) {
    return timed(`${method} ${this.source}`, () => original.apply(this, args));
  };
}
const exec = Database.prototype.exec;
Database.prototype.exec = function (sql) {
  return timed(`exec ${sql}`, () => exec.call(this, sql));
};

process.on('SIGUSR2', () => {
  const lines = [...totals.entries()]
    .sort((a, b) => Number(b[1].ns - a[1].ns))
    .map(([what, t]) => {
      const us = (Number(t.ns) / 1e3 / t.runs).toFixed(1);
      return `${t.runs}\t${us} us\t${(Number(t.ns) / 1e6).toFixed(0)} ms\t${what.replace(/\s+/g, ' ')}`;
    });
  writeFileSync(path.join(os.tmpdir(), `chute-sql-timing-${process.pid}.txt`), `${lines.join('\n')}\n`);
  totals.clear();
});
