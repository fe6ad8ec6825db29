// Preloaded into a bench server (`node --import`) by `npm run bench -- issuance --cpu-prof
// --sql-time`: times every SQLite statement the server runs, by its SQL text. On SIGUSR2 it writes
// what it timed since the last signal to `<BENCH_SQL_TIME_FILE>.<n>.json` (n = 0, 1, ...) and starts
// again, so that the bench can read each grant's levels apart. Plain JavaScript: the server may run
// the bundle, without the TypeScript loader. A bench instrument only; openrail never loads it.
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.BENCH_SQL_TIME_FILE;
if (file) {
  // The same module the server's driver loads (one copy of the addon per process), so that its
  // statements' prototype is the one wrapped here.
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const probe = new Database(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  let timed = new Map();
  for (const method of ['run', 'get', 'all']) {
    const original = statement[method];
    statement[method] = function timedStatement(...args) {
      const start = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const us = Number(process.hrtime.bigint() - start) / 1000;
        const seen = timed.get(this.source) ?? { calls: 0, us: 0 };
        seen.calls += 1;
        seen.us += us;
        timed.set(this.source, seen);
      }
    };
  }
  let written = 0;
  process.on('SIGUSR2', () => {
    const rows = [...timed].map(([sql, t]) => ({ sql, calls: t.calls, us: t.us }));
    timed = new Map();
    writeFileSync(`${file}.tmp`, JSON.stringify(rows));
    renameSync(`${file}.tmp`, `${file}.${written++}.json`);
  });
}
