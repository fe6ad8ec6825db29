import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { startRefusingServer } from '../../../test/helpers/pg-refusing-server.ts';
import { freePort } from '../../../test/helpers/process.ts';
import { ServiceError } from '../../core/errors.ts';
import { openDatabase } from './connect.ts';
import { classifyPostgresStartError, PostgresStartError, postgresTarget, reachDatabase } from './postgres-start-error.ts';

/** An error as node-postgres makes it from a server's ErrorResponse. */
function serverError(code: string, message: string): pg.DatabaseError {
  const err = new pg.DatabaseError(message, message.length, 'error');
  err.code = code;
  err.severity = 'FATAL';
  return err;
}

/** A Node socket error, as the driver passes it on. */
function socketError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, syscall: 'connect' });
}

/** What the pool hands the start: its database_unavailable with the driver's error as the cause. */
const wrapped = (cause: unknown) => new ServiceError('database_unavailable', undefined, { cause });

describe('classifyPostgresStartError', () => {
  const cases: [string, unknown, string][] = [
    ['connection refused', wrapped(socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5999')), 'unreachable'],
    ['an unknown host', socketError('ENOTFOUND', 'getaddrinfo ENOTFOUND db.invalid'), 'unreachable'],
    ['a connection timeout', socketError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:5432'), 'unreachable'],
    ["the pool's own timeout", wrapped(new Error('timeout exceeded when trying to connect')), 'unreachable'],
    ['a connection closed unanswered', new Error('Connection terminated unexpectedly'), 'unreachable'],
    [
      'a wrong password (28P01)',
      serverError('28P01', 'password authentication failed for user "openrail"'),
      'authentication-refused',
    ],
    ['an unknown role or pg_hba refusal (28000)', serverError('28000', 'role "nobody" does not exist'), 'authentication-refused'],
    [
      'no password given',
      new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
      'authentication-refused',
    ],
    ['a missing database (3D000)', serverError('3D000', 'database "nope" does not exist'), 'database-missing'],
    ['a server starting up (57P03)', wrapped(serverError('57P03', 'the database system is starting up')), 'not-accepting'],
    ['another refusal (53300)', serverError('53300', 'sorry, too many clients already'), 'other'],
  ];
  for (const [name, err, problem] of cases) {
    test(`${name} is ${problem}`, () => assert.equal(classifyPostgresStartError(err).problem, problem));
  }

  test("another refusal keeps the server's words and its SQLSTATE", () => {
    assert.deepEqual(classifyPostgresStartError(serverError('53300', 'sorry, too many clients already')), {
      problem: 'other',
      detail: 'PostgreSQL says: sorry, too many clients already (SQLSTATE 53300)',
    });
  });
});

describe('postgresTarget', () => {
  test('reads host, port, database and user as the driver does, never the password', () => {
    const target = postgresTarget('postgres://ada:s3cret-pw@db.example.org:6543/rail');
    assert.deepEqual(target, { host: 'db.example.org', port: 6543, database: 'rail', user: 'ada' });
    assert.equal(JSON.stringify(target).includes('s3cret-pw'), false);
  });

  test('fills a port the URL leaves out as the driver does (PGPORT, else 5432)', () => {
    assert.equal(postgresTarget('postgres://ada:pw@db.example.org/rail').port, Number(process.env.PGPORT ?? 5432));
  });
});

describe('reachDatabase, with the real driver', () => {
  test('a closed port: unreachable, with host, port and database, and what to do', async () => {
    const port = await freePort();
    const url = `postgres://ada:s3cret-pw@127.0.0.1:${port}/rail`;
    const db = openDatabase({ kind: 'postgres', url });
    try {
      const err = await reachDatabase(db, { kind: 'postgres', url }).then(
        () => assert.fail('reached a closed port'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof PostgresStartError);
      assert.equal(err.problem, 'unreachable');
      assert.equal(
        err.message,
        `PostgreSQL at 127.0.0.1:${port}, database "rail": unreachable (connection refused: nothing listens there): ` +
          'check that PostgreSQL runs there and that DATABASE_URL names its host and port',
      );
    } finally {
      await db.destroy();
    }
  });

  // A real PostgreSQL cannot be held starting up; this server answers as one does then.
  test('a server that is starting up (57P03): not yet accepting connections', async () => {
    const server = await startRefusingServer('57P03', 'the database system is starting up');
    const url = `postgres://ada:s3cret-pw@127.0.0.1:${server.port}/rail`;
    const db = openDatabase({ kind: 'postgres', url });
    try {
      const err = await reachDatabase(db, { kind: 'postgres', url }).then(
        () => assert.fail('connected to a refusing server'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof PostgresStartError);
      assert.equal(err.problem, 'not-accepting');
      assert.equal(
        err.message,
        `PostgreSQL at 127.0.0.1:${server.port}, database "rail": not yet accepting connections ` +
          '(the database system is starting up): run the command again once PostgreSQL accepts connections',
      );
      assert.deepEqual(server.startups, [{ user: 'ada', database: 'rail' }], 'the driver really spoke to it');
    } finally {
      await db.destroy();
      await server.stop();
    }
  });

  test('SQLite needs no check', async () => {
    const db = openDatabase({ kind: 'sqlite', file: ':memory:' });
    try {
      await reachDatabase(db, { kind: 'sqlite', file: ':memory:' });
    } finally {
      await db.destroy();
    }
  });
});
