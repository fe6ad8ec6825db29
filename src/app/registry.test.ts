import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type TestDatabase, testDatabases } from '../../test/helpers/databases.ts';
import { railOn, startRail, stopRail, type TestRail } from '../../test/helpers/rail.ts';
import { MODULES } from '../compose.ts';
import { defineModule, type Module } from './module.ts';
import { type BaseContext, ModuleRegistry } from './registry.ts';

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

const context = {} as BaseContext;
const made: string[] = [];
const makeStore = <T>(store: new (db: never) => T): T => {
  made.push(store.name);
  return new store(undefined as never);
};

class LedgerStore {}
class TenantStore {}

describe('the module registry', () => {
  test('a module is built once, when asked for, and a module nobody asks for never is', async () => {
    const m = modules();
    const registry = new ModuleRegistry(m.all, context, makeStore);
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
    const registry = new ModuleRegistry([m.a, m.b], context, makeStore);
    await assert.rejects(async () => registry.build(m.c), /not in the module list/);
    registry.seal();
    assert.throws(() => registry.build(m.a), /used after start/);
  });

  test('two modules of one name are refused', () => {
    const m = modules();
    assert.throws(() => new ModuleRegistry([m.a, { ...m.c, name: 'a' }], context, makeStore), /two modules are named a/);
  });

  test('a store is built once, by its owner only; any other module is refused', async () => {
    made.length = 0;
    const ledgers: unknown[] = [];
    const owner = defineModule({
      name: 'owner',
      groups: [],
      owns: [LedgerStore],
      build: (ctx) => {
        ledgers.push(ctx.store(LedgerStore), ctx.store(LedgerStore));
        return { services: {} };
      },
    });
    const trespasser = defineModule({
      name: 'trespasser',
      groups: [],
      build: (ctx) => ({ services: ctx.store(LedgerStore) }),
    });
    const stray = defineModule({
      name: 'stray',
      groups: [],
      build: (ctx) => ({ services: ctx.store(TenantStore) }),
    });
    const registry = new ModuleRegistry([owner, trespasser, stray], context, makeStore);
    await registry.build(owner);
    assert.ok(ledgers[0] instanceof LedgerStore);
    assert.equal(ledgers[1], ledgers[0], 'one instance');
    assert.deepEqual(made, ['LedgerStore']);
    await assert.rejects(
      async () => registry.build(trespasser),
      /trespasser builds LedgerStore, which belongs to owner: use owner's views or services/,
    );
    await assert.rejects(async () => registry.build(stray), /stray builds TenantStore, which no module owns/);
  });

  test('a module’s views are built alone: reading them builds neither the owner nor its jobs', async () => {
    class OwnViews {}
    const builds: string[] = [];
    const owner = defineModule({
      name: 'owner',
      groups: ['owner'],
      owns: [OwnViews],
      views: OwnViews,
      build: () => {
        builds.push('owner');
        return { services: {}, jobs: [{ name: 'owner.job', everyMs: 60_000, run: async () => {} }] };
      },
    });
    let read: OwnViews | undefined;
    const reader = defineModule({
      name: 'reader',
      groups: ['reader'],
      build: (ctx) => {
        read = ctx.viewsOf(owner);
        return { services: {} };
      },
    });
    const registry = new ModuleRegistry([owner, reader], context, makeStore);
    await registry.build(reader);
    assert.ok(read instanceof OwnViews);
    assert.deepEqual(builds, [], 'the owner was not built');
    assert.deepEqual(await registry.jobs(), []);
    const unowned = defineModule({ name: 'unowned', groups: [], views: OwnViews, build: () => ({ services: {} }) });
    assert.throws(
      () => new ModuleRegistry([unowned], context, makeStore),
      /module unowned publishes OwnViews as its views but does not own it/,
    );
  });

  test('a store has one owner', () => {
    const one = defineModule({ name: 'one', groups: [], owns: [LedgerStore], build: () => ({ services: {} }) });
    const two = defineModule({ name: 'two', groups: [], owns: [LedgerStore], build: () => ({ services: {} }) });
    assert.throws(() => new ModuleRegistry([one, two], context, makeStore), /LedgerStore is owned by one and two/);
  });
});

for (const factory of testDatabases()) {
  describe(`an unmounted module is never built (${factory.name})`, () => {
    let db: TestDatabase;
    let rail: TestRail;
    before(async () => {
      ({ db, rail } = await railOn(factory, { OPENRAIL_UNMOUNTED_GROUPS: 'verification,conformance' }, undefined, {
        runJobs: false,
      }));
    });
    after(() => stopRail(rail, db));

    test('its routes are absent and its jobs never run; the modules still mounted run theirs', async () => {
      assert.equal((await rail.app.inject({ method: 'GET', url: '/verify/catalog' })).statusCode, 404);
      const ran = await rail.jobs.tick();
      assert.ok(!ran.some((name) => name.startsWith('verification.')), ran.join(', '));
      assert.ok(ran.includes('offers.erase-subjects'), ran.join(', '));
    });
  });
}

test('the README names every route group OPENRAIL_UNMOUNTED_GROUPS takes, and no other', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith('| `OPENRAIL_UNMOUNTED_GROUPS` |'));
  assert.ok(row, 'the README documents OPENRAIL_UNMOUNTED_GROUPS');
  const named = [...row.slice(row.indexOf('(')).matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort();
  assert.deepEqual(named, MODULES.flatMap((m) => m.groups).sort());
});

describe('the groups a module serves', () => {
  test('are the ones it declares: a group built under another name refuses the start', async () => {
    const factory = testDatabases()[0];
    assert.ok(factory);
    const db = await factory.create();
    const misnamed = defineModule({
      name: 'probe-misnamed',
      groups: ['probe-declared'],
      build: () => ({ services: {}, routes: () => [{ name: 'probe-built', routes: [] }] }),
    });
    try {
      await assert.rejects(
        startRail(db, {}, undefined, { runJobs: false, extraModules: [misnamed] }),
        /module probe-misnamed declares the groups probe-declared and builds probe-built/,
      );
    } finally {
      await db.drop();
    }
  });
});
