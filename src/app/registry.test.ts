import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { startRail, type TestRail } from '../../test/helpers/rail.ts';
import { type Context, defineModule, type Module } from './module.ts';
import { ModuleRegistry } from './registry.ts';

/** Modules that count their builds; `b` uses `a`, `c` is on its own. */
function modules() {
  const builds: string[] = [];
  const a = defineModule({
    name: 'a',
    groups: ['a'],
    build: () => {
      builds.push('a');
      return { services: { answer: 42 }, jobs: [{ name: 'a.job', everyMs: 60_000, run: async () => {} }] };
    },
  });
  const b = defineModule({
    name: 'b',
    groups: ['b'],
    build: async (ctx) => {
      builds.push('b');
      const { answer } = await ctx.use(a);
      return { services: { twice: answer * 2 } };
    },
  });
  const c = defineModule({
    name: 'c',
    groups: ['c'],
    build: () => {
      builds.push('c');
      return { services: {}, jobs: [{ name: 'c.job', everyMs: 60_000, run: async () => {} }] };
    },
  });
  return { builds, a, b, c, all: [a, b, c] as Module[] };
}

const context = {} as Omit<Context, 'use'>;

describe('the module registry', () => {
  test('a module is built once, when asked for, and a module nobody asks for never is', async () => {
    const m = modules();
    const registry = new ModuleRegistry(m.all, context);
    assert.deepEqual((await registry.build(m.b)).services, { twice: 84 });
    await registry.build(m.a);
    assert.deepEqual(m.builds, ['b', 'a'], 'a was built for b, once');
    assert.deepEqual(
      (await registry.jobs()).map((j) => j.name),
      ['a.job'],
      'the jobs of the modules built, and only those',
    );
  });

  test('once sealed, nothing more is built; a module outside the list is refused', async () => {
    const m = modules();
    const registry = new ModuleRegistry([m.a, m.b], context);
    await assert.rejects(async () => registry.build(m.c), /not in the module list/);
    registry.seal();
    assert.throws(() => registry.build(m.a), /used after start/);
  });

  test('two modules of one name are refused', () => {
    const m = modules();
    assert.throws(() => new ModuleRegistry([m.a, { ...m.c, name: 'a' }], context), /two modules are named a/);
  });
});

for (const factory of testDatabases()) {
  describe(`an unmounted module is never built (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      db = await factory.create();
      rail = await startRail(db, { OPENRAIL_UNMOUNTED_GROUPS: 'verification,conformance' }, undefined, { runJobs: false });
    });
    after(async () => {
      await rail.stop();
      await db.drop();
    });

    test('its routes are absent and its jobs never run; the modules still mounted run theirs', async () => {
      assert.equal((await rail.app.inject({ method: 'GET', url: '/verify/catalog' })).statusCode, 404);
      const ran = await rail.jobs.tick();
      assert.ok(!ran.some((name) => name.startsWith('verification.')), ran.join(', '));
      assert.ok(ran.includes('offers.erase-subjects'), ran.join(', '));
    });
  });
}
