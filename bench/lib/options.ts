import { type ParseArgsConfig, parseArgs } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

const COMMON = {
  quick: { type: 'boolean', default: false },
  duration: { type: 'string' },
  'cpu-prof': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const satisfies OptionsConfig;

/** --warmup <s>: unmeasured seconds before each window, for the benches that have windows. */
export const WARMUP_OPTION = { warmup: { type: 'string' } } as const satisfies OptionsConfig;

/** What every bench takes, and what --quick shortens in all of them. */
export interface CommonOptions {
  quick: boolean;
  durationS: number;
  warmupS: number;
  cryptoMs: number;
  cpuProf: boolean;
}

/** A positive number (digit separators allowed: 1_000_000), or `fallback` when the option is absent. */
export function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw.replaceAll('_', ''));
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number (got ${raw})`);
  return n;
}

/** A comma-separated list of positive integers, such as concurrency levels. */
export function positiveIntegers(raw: string, name: string): number[] {
  return raw.split(',').map((item) => {
    const n = Number(item);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} takes positive integers (got ${item})`);
    return n;
  });
}

/**
 * Parses --quick, --duration, --cpu-prof and --help along with the bench's `own` options (strictly:
 * an unknown option is an error). --help prints `usage` and exits. A bench that warms up declares
 * `warmup` among its own (WARMUP_OPTION), and `warmupS` is the seconds it gives.
 */
export function parseOptions<T extends OptionsConfig>(argv: string[], usage: string, own: T) {
  const { values } = parseArgs({ args: argv, options: { ...COMMON, ...own }, strict: true });
  // TypeScript cannot resolve the parsed type of a generic config; these are COMMON's and WARMUP_OPTION's.
  const given = values as { help?: boolean; quick?: boolean; duration?: string; warmup?: string; 'cpu-prof'?: boolean };
  if (given.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const quick = given.quick === true;
  const common: CommonOptions = {
    quick,
    durationS: positive(given.duration, 'duration', quick ? 1 : 5),
    // Longer than the default when a level's code must be fully compiled before its window (bench/README.md,
    // "HAIP issuance against the pre-authorized one"): V8 keeps optimizing a path for seconds after it turns hot.
    warmupS: positive(given.warmup, 'warmup', quick ? 0.3 : 1),
    cryptoMs: quick ? 400 : 1500,
    cpuProf: given['cpu-prof'] === true,
  };
  return { values, ...common };
}
