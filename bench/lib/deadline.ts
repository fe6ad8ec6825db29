/**
 * Every wait in a bench is bounded: `within` gives up after `ms`, with an error that names what was
 * waited for, so a bench never sits idle (a dead server, a lost connection) without saying why.
 */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${Math.round(ms / 1000)} s waiting for ${what}`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
