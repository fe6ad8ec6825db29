import { readdirSync, readFileSync } from 'node:fs';
import { cpus, platform, release, totalmem } from 'node:os';

/** What a results file records about the machine it was measured on. */
export function describeMachine() {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${platform()} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}

const CLOCK_TICKS_PER_S = 100;

/** Busy CPU time of the whole machine so far (all cores, every process), in ms; undefined without /proc. */
export function machineBusyMs(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const [, ...ticks] = line.trim().split(/\s+/);
    const n = ticks.map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const busy = (n[0] ?? 0) + (n[1] ?? 0) + (n[2] ?? 0) + (n[5] ?? 0) + (n[6] ?? 0) + (n[7] ?? 0);
    return (busy * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return undefined;
  }
}

/**
 * How many cores other processes kept busy over `ms` (the bench idle meanwhile): the machine is
 * shared when this is well above zero, and every rate measured then is understated.
 */
export async function otherLoad(ms = 1000): Promise<number | undefined> {
  const a = machineBusyMs();
  const self0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineBusyMs();
  const self = process.cpuUsage(self0);
  if (a === undefined || b === undefined) return undefined;
  return Math.max(0, (b - a - (self.user + self.system) / 1000) / ms);
}

/** CPU time so far (ms) of every live process whose command name is `comm` (e.g. the postgres backends). */
export function commCpuMs(comm: string): number | undefined {
  let total = 0;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const open = stat.indexOf('(');
        const close = stat.lastIndexOf(')');
        if (stat.slice(open + 1, close) !== comm) continue;
        const fields = stat.slice(close + 2).split(' ');
        total += Number(fields[11]) + Number(fields[12]);
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return undefined;
  }
  return (total * 1000) / CLOCK_TICKS_PER_S;
}
