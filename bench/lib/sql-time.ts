// The bench's side of bench/lib/sql-time.mjs (--sql-time): preload it into a server, ask the server
// for what it timed so far, and print a grant's dearest statements per credential.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { within } from './deadline.ts';
import { fixed, table } from './stats.ts';

export interface StatementTime {
  sql: string;
  calls: number;
  us: number;
}

/** The server's Node flags and environment that load the timing; `base` names the files it writes. */
export function sqlTimeServer(base: string): { base: string; nodeFlags: string[]; env: Record<string, string> } {
  return {
    base,
    nodeFlags: ['--import', fileURLToPath(new URL('./sql-time.mjs', import.meta.url))],
    env: { BENCH_SQL_TIME_FILE: base },
  };
}

/** Signals the server (SIGUSR2) for its `n`-th reading, waits for the file, answers what it holds. */
export async function sqlTimesSince(pid: number, base: string, n: number): Promise<StatementTime[]> {
  const file = `${base}.${n}.json`;
  process.kill(pid, 'SIGUSR2');
  await within(
    (async () => {
      while (!existsSync(file)) await new Promise((r) => setTimeout(r, 50));
    })(),
    10_000,
    `the server's statement times (${file})`,
  );
  return JSON.parse(readFileSync(file, 'utf8')) as StatementTime[];
}

/** The `top` statements by time per credential, with calls per credential and the time of one call. */
export function sqlTimeTable(statements: readonly StatementTime[], credentials: number, top = 15): string {
  const rows = [...statements].sort((a, b) => b.us - a.us).slice(0, top);
  return table(
    ['µs per credential', 'calls per credential', 'µs per call', 'statement'],
    rows.map((s) => [
      fixed(s.us / credentials, 1),
      fixed(s.calls / credentials, 2),
      fixed(s.us / s.calls, 1),
      s.sql.replace(/\s+/g, ' ').slice(0, 110),
    ]),
  );
}
