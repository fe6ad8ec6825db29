import { sql } from 'kysely';
import type { DatabaseLocation } from '../../config/config.ts';
import { type Db, driver } from './connect.ts';

/** Why a start could not use its PostgreSQL database. */
export type PostgresStartProblem = 'unreachable' | 'authentication-refused' | 'database-missing' | 'not-accepting' | 'other';

/** Where the driver goes for a database URL, as it reads it (PG* variables fill what the URL leaves out); never the password. */
export interface PostgresTarget {
  host: string;
  port: number;
  database: string;
  user: string;
}

export function postgresTarget(url: string): PostgresTarget {
  // node-postgres reads the URL and the PG* defaults when a client is made; it connects only on connect().
  const client = new (driver().Client)({ connectionString: url });
  return { host: client.host, port: client.port, database: client.database ?? '', user: client.user ?? '' };
}

/** The error a start failed with because its PostgreSQL database could not be used: what, where, and what to do. */
export class PostgresStartError extends Error {
  constructor(
    readonly problem: PostgresStartProblem,
    readonly target: PostgresTarget,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'PostgresStartError';
  }
}

/** Node's codes of a connection that could not be made or was cut before the server answered. */
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed for now',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the host',
  ECONNRESET: 'connection cut before PostgreSQL answered',
  EPIPE: 'connection cut before PostgreSQL answered',
};

/** node-postgres's own messages for a connection it could not make in time, or lost before any answer. */
const DRIVER_MESSAGES: [RegExp, string][] = [
  [/timeout exceeded when trying to connect|due to connection timeout/, 'no answer within the connection timeout'],
  [/^Connection terminated/, 'connection closed before PostgreSQL answered'],
];

/**
 * The error itself or what it wraps: a connection failure reaches the start as the pool's
 * database_unavailable ServiceError, with the driver's error as its cause.
 */
function* chain(err: unknown): Generator<{ code?: unknown; message?: unknown }> {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    yield e as { code?: unknown; message?: unknown };
    e = (e as { cause?: unknown }).cause;
  }
}

/** Which of the start problems `err` is, and the detail that says why (undefined: none). */
export function classifyPostgresStartError(err: unknown): { problem: PostgresStartProblem; detail?: string } {
  for (const e of chain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    // SQLSTATEs (PostgreSQL, Appendix A): 28P01 invalid_password, 28000 invalid_authorization_specification
    // (an unknown role, no pg_hba.conf entry), 3D000 invalid_catalog_name, 57P03 cannot_connect_now.
    if (code === '28P01') return { problem: 'authentication-refused', detail: 'the password was refused' };
    if (code === '28000') return { problem: 'authentication-refused', detail: `PostgreSQL says: ${message}` };
    if (code === '3D000') return { problem: 'database-missing' };
    if (code === '57P03') return { problem: 'not-accepting', detail: message };
    // The server asked for a password and DATABASE_URL gives none: node-postgres refuses before sending one.
    if (/^SASL: .*password must be a string/.test(message) || /password authentication.*no password/i.test(message)) {
      return { problem: 'authentication-refused', detail: 'PostgreSQL asks for a password and DATABASE_URL gives none' };
    }
    const network = NETWORK_CODES[code];
    if (network) return { problem: 'unreachable', detail: network };
    for (const [pattern, detail] of DRIVER_MESSAGES) if (pattern.test(message)) return { problem: 'unreachable', detail };
  }
  for (const e of chain(err)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.message === 'string') {
      return { problem: 'other', detail: `PostgreSQL says: ${e.message} (SQLSTATE ${e.code})` };
    }
  }
  // Neither the server's answer nor a known failure to connect (a TLS setting, say): its own words are all there is.
  const innermost = [...chain(err)].at(-1);
  return typeof innermost?.message === 'string' ? { problem: 'other', detail: innermost.message } : { problem: 'other' };
}

/**
 * The words of a start failure, one shape for each problem: where (host, port, database), which
 * problem, why when known, and what to do.
 */
export function postgresStartError(err: unknown, url: string): PostgresStartError {
  const target = postgresTarget(url);
  const { problem, detail } = classifyPostgresStartError(err);
  const why = detail ? ` (${detail})` : '';
  const what = {
    unreachable: `unreachable${why}: check that PostgreSQL runs there and that DATABASE_URL names its host and port`,
    'authentication-refused': `authentication refused for user "${target.user}"${why}: check the user and password in DATABASE_URL, and that pg_hba.conf admits this client`,
    'database-missing': `database missing: create it (createdb -h ${target.host} -p ${target.port} -U ${target.user} ${target.database}) or name an existing one in DATABASE_URL`,
    'not-accepting': `not yet accepting connections${why}: run the command again once PostgreSQL accepts connections`,
    other: `cannot be used${why}: check DATABASE_URL and the PostgreSQL server's log`,
  }[problem];
  const message = `PostgreSQL at ${target.host}:${target.port}, database "${target.database}": ${what}`;
  return new PostgresStartError(problem, target, message, { cause: err });
}

/**
 * The start's first statement: on PostgreSQL, a failure to connect becomes a PostgresStartError
 * that says which problem it is, where, and what to do, instead of the driver's words surfacing
 * from whichever statement met it first (the migrations').
 */
export async function reachDatabase(db: Db, location: DatabaseLocation): Promise<void> {
  if (location.kind !== 'postgres') return;
  try {
    await sql`select 1`.execute(db);
  } catch (err) {
    throw postgresStartError(err, location.url);
  }
}
