import { otherLoad } from './machine.ts';
import { fixed } from './stats.ts';

/** Above this many cores busy elsewhere during a measurement, the machine was shared: its rates are suspect. */
const SHARED_CORES = 0.25;
/** Below this many cores busy elsewhere, the machine counts as quiet enough to start measuring. */
const QUIET_CORES = 0.15;

export const wasShared = (otherCores: number | undefined) => (otherCores ?? 0) > SHARED_CORES;

/** Measures (over `ms`, the bench idle) and reports what other processes keep busy before the bench starts. */
export async function loadBefore(ms: number, log: (l: string) => void): Promise<number | undefined> {
  const load = await otherLoad(ms);
  log(`other processes on the machine before the bench: ${fixed(load, 2)} busy cores`);
  return load;
}

/** Waits up to `seconds` for other processes to leave the CPUs (0: no waiting); then measures anyway. */
export async function waitQuiet(seconds: number, log: (l: string) => void): Promise<void> {
  if (seconds <= 0) return;
  const until = Date.now() + seconds * 1000;
  let load = await otherLoad(1000);
  if (load === undefined || load < QUIET_CORES) return;
  log(`  waiting for the machine to go quiet (other processes: ${fixed(load, 2)} cores)`);
  while (Date.now() < until) {
    load = await otherLoad(1000);
    if (load === undefined || load < QUIET_CORES) return;
  }
  log(`  still ${fixed(load, 2)} cores busy elsewhere after ${seconds} s; measuring anyway`);
}
