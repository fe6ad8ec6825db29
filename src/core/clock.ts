/** Time is passed in so the pure core and the tests control it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const toSeconds = (ms: number): number => Math.floor(ms / 1000);
