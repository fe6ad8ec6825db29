import { within } from './deadline.ts';

/** Failed operations by kind (such as "credential 500" or "network"): how many, and the first one's answer. */
export type Failures = Record<string, { count: number; sample: string }>;

export interface Failure {
  key: string;
  sample: string;
}

export interface Load<T> {
  /** Concurrent workers (wallets), each running one operation after another. */
  workers: number;
  seconds: number;
  /** The next operation's input; undefined when none is left, which stops that worker early. */
  take(): T | undefined;
  /** One operation: undefined on success, else what failed. */
  attempt(item: T): Promise<Failure | undefined>;
  /** What an exception out of `attempt` counts as. */
  thrown(err: unknown): Failure;
}

export interface Driven {
  ok: number;
  errors: number;
  seconds: number;
  /** Latencies of the successful operations (ms), ascending. */
  latencies: Float64Array;
  /** Whether `take` ran dry before the time was up. */
  exhausted: boolean;
  failures: Failures;
  /** The window on the machine's monotonic clock, in microseconds: a CPU profile's own clock (lib/profile.ts). */
  windowUs: [from: number, to: number];
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Runs `load` until its seconds have passed: a worker starts no operation after the deadline, but finishes its current one. */
export async function drive<T>(load: Load<T>): Promise<Driven> {
  const latencies: number[] = [];
  const failures: Failures = {};
  let errors = 0;
  let exhausted = false;
  const start = performance.now();
  const fromUs = monotonicUs();
  const deadline = start + load.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const item = load.take();
      if (item === undefined) {
        exhausted = true;
        return;
      }
      const t0 = performance.now();
      let failure: Failure | undefined;
      try {
        failure = await load.attempt(item);
      } catch (err) {
        failure = load.thrown(err);
      }
      const t1 = performance.now();
      if (!failure) {
        latencies.push(t1 - t0);
        continue;
      }
      errors++;
      const f = failures[failure.key] ?? { count: 0, sample: failure.sample };
      f.count++;
      failures[failure.key] = f;
    }
  };
  // Each operation's requests have their own deadline (lib/http.ts); this bounds the stragglers.
  await within(
    Promise.all(Array.from({ length: load.workers }, worker)),
    load.seconds * 1000 + 120_000,
    `${load.workers} clients to finish their last operation after a ${load.seconds} s window`,
  );
  return {
    ok: latencies.length,
    errors,
    seconds: (performance.now() - start) / 1000,
    latencies: Float64Array.from(latencies).sort(),
    exhausted,
    failures,
    windowUs: [fromUs, monotonicUs()],
  };
}

/** The warm-up's failures and the measured window's together, each kind keeping its first sample. */
export function mergeFailures(...all: Failures[]): Failures {
  const out: Failures = {};
  for (const f of all) {
    for (const [k, v] of Object.entries(f)) {
      const o = out[k] ?? { count: 0, sample: v.sample };
      o.count += v.count;
      out[k] = o;
    }
  }
  return out;
}
