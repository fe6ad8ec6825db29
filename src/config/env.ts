/** A bad value in the environment: the message names its variable, and the process stops on it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable} ${problem}`);
  }
}

export type Env = Record<string, string | undefined>;

/** A variable's value, trimmed; an empty one is absent. */
export function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

export function integerIn(env: Env, name: string, min: number, max: number, fallback: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ConfigError(name, `must be an integer ${min}-${max} (got "${raw}")`);
  return n;
}

export function secret(env: Env, name: string, minLength: number): string | undefined {
  const raw = read(env, name);
  if (raw !== undefined && raw.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters`);
  return raw;
}

export function optionalHttpsUrl(env: Env, name: string): string | undefined {
  const raw = read(env, name);
  if (raw && !/^https:\/\/\S+$/.test(raw)) throw new ConfigError(name, 'must be an https URL');
  return raw;
}
