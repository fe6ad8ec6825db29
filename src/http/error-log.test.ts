/**
 * Logs are bounded too (docs/security.md, "Logs"; issue 24, point 6). A refusal a route answers
 * itself (a page instead of an error) is answered once and logged as its one request line: no
 * "reply already sent" warning with a stack per request, which an anonymous client could repeat
 * to fill the disk. A failure's log line keeps what failed: its class, message and cause, and for
 * a thrown value that is not an Error, its class and message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { startRail, type TestRail } from '../../test/helpers/rail.ts';
import { createLogger } from '../app/logger.ts';
import { defineModule } from '../app/module.ts';
import { defineRoute } from './route.ts';

const failing = defineModule({
  name: 'failing',
  groups: ['failing'],
  build: () => ({
    services: {},
    routes: () => [
      {
        name: 'failing',
        routes: [
          defineRoute({
            method: 'POST',
            path: '/test/fail',
            auth: 'public',
            stability: 'unpromised',
            summary: 'Fails as a library might: with an Error that has a cause, or with a plain object.',
            body: Type.Object({ plain: Type.Boolean() }, { additionalProperties: false }),
            responses: { 200: { description: 'never' } },
            handler: async (request) => {
              if (request.body.plain) throw { code: 'EPLAIN', message: 'the pool rejected with an object' };
              throw new Error('the statement failed', { cause: new Error('relation "x" does not exist') });
            },
          }),
        ],
      },
    ],
  }),
});

for (const factory of testDatabases()) {
  describe(`a refusal logs one short line, a failure keeps its cause (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    const lines: Record<string, unknown>[] = [];
    before(async () => {
      db = await factory.create();
      const logger = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
      rail = await startRail(db, {}, undefined, { logger, runJobs: false, extraModules: [failing] });
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

    test('continuing a sign-in without a valid ticket, 50 times: 50 request lines and nothing else', async () => {
      await settle();
      lines.length = 0;
      const cookies = [undefined, `openrail_signin=${'a'.repeat(43)}`, 'openrail_signin=not-a-ticket'];
      for (let i = 0; i < 50; i++) {
        const cookie = cookies[i % cookies.length];
        const answer = await rail.app.inject({
          method: 'POST',
          url: '/account/signin/continue',
          headers: {
            origin: 'https://rail.example.test',
            'content-type': 'application/x-www-form-urlencoded',
            ...(cookie ? { cookie } : {}),
          },
          payload: '',
        });
        assert.ok([200, 401].includes(answer.statusCode), answer.body);
      }
      const session = await rail.app.inject({ method: 'POST', url: '/account/session', headers: { authorization: 'Holder x' } });
      assert.equal(session.statusCode, 401);
      await settle();
      assert.deepEqual(
        lines.filter((l) => l.msg !== 'request'),
        [],
        'no warning, no stack: a refusal is its request line',
      );
      assert.equal(lines.length, 51);
      for (const line of lines) assert.ok(JSON.stringify(line).length < 400, 'each line is short');
    });

    test('a failure is logged with its class, message and cause; a thrown object with its class, code and message', async () => {
      lines.length = 0;
      for (const plain of [false, true]) {
        const answer = await rail.app.inject({ method: 'POST', url: '/test/fail', payload: { plain } });
        assert.equal(answer.statusCode, 500);
        assert.deepEqual(Object.keys(answer.json()).sort(), ['error', 'message']);
        assert.doesNotMatch(answer.body, /statement|pool|relation/, 'the body stays generic');
      }
      await settle();
      const failures = lines.filter((l) => l.msg === 'request failed').map((l) => l.err as Record<string, unknown>);
      assert.equal(failures.length, 2);
      assert.equal(failures[0]?.type, 'Error');
      assert.equal(failures[0]?.message, 'the statement failed');
      assert.equal((failures[0]?.cause as Record<string, unknown>).message, 'relation "x" does not exist');
      assert.deepEqual(failures[1], { type: 'Object', code: 'EPLAIN', message: 'the pool rejected with an object' });
    });
  });
}
