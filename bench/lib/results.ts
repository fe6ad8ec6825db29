import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeMachine } from './machine.ts';
import { REPO_ROOT } from './server.ts';

/** What every results file starts with: which bench, when, and on what machine. */
export interface Run {
  bench: string;
  startedAt: Date;
  machine: ReturnType<typeof describeMachine>;
}

export function startRun(bench: string, log: (l: string) => void): Run {
  const run = { bench, startedAt: new Date(), machine: describeMachine() };
  log(`openrail ${bench} bench: ${run.machine.cpus} x ${run.machine.model}, node ${run.machine.node}`);
  return run;
}

/**
 * Writes bench/results/<bench>-<start time>.json: the run, what other processes kept busy before it,
 * then the bench's own `fields` in their order. Returns the file's path.
 */
export function writeResults(run: Run, otherCoresBefore: number | undefined, fields: Record<string, unknown>): string {
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${run.bench}-${run.startedAt.toISOString().replaceAll(':', '-')}.json`);
  const record = {
    bench: run.bench,
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...run.machine, otherCoresBefore },
    ...fields,
  };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}
