import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineModule } from '../../app/module.ts';
import { type BaseContext, ModuleRegistry } from '../../app/registry.ts';
import { MODULES } from '../../compose.ts';
import type { Db } from './connect.ts';
import { HOLDER_DATA, type HolderColumn } from './holder-data.ts';
import { coverRegistry, holderRecordsOf, SqlHolderRecords } from './holder-records.ts';
import { OWNER_OF } from './owners.ts';

/** The executor never touches the database when it is built: the checks need none. */
const noDb = undefined as unknown as Db;
const entry = (table: string, column: string, names = 'account') =>
  HOLDER_DATA.find((c) => c.table === table && c.column === column && c.names === names) as HolderColumn;

describe('the holder-data registry, run by each owner (holder-records.ts)', () => {
  test('an owner’s executor refuses, when it is built, an entry of a table its owner does not own', () => {
    assert.throws(
      () => new SqlHolderRecords(noDb, 'wallet', [entry('wallet_items', 'account_id'), entry('members', 'account_id')]),
      /the holder records of wallet cannot run members\.account_id: members belongs to membership/,
    );
    assert.throws(() => new SqlHolderRecords(noDb, 'backoffice', [entry('audit_log', 'actor')]), /audit_log belongs to kernel/);
    const wallet = new SqlHolderRecords(noDb, 'wallet', [entry('wallet_items', 'account_id')]);
    assert.deepEqual(wallet.positions, [HOLDER_DATA.indexOf(entry('wallet_items', 'account_id'))]);
  });

  test('by default an owner runs exactly the registry’s entries of the tables it owns, in the registry’s order', () => {
    const membership = new SqlHolderRecords(noDb, 'membership');
    const expected = HOLDER_DATA.flatMap((c, i) => (OWNER_OF.get(c.table) === 'membership' ? [i] : []));
    assert.deepEqual(membership.positions, expected);
    assert.ok(expected.length > 0);
  });

  test('every module that owns a registered table publishes its part, and the parts and the kernel’s cover the registry once', () => {
    const registry = new ModuleRegistry(MODULES, {} as BaseContext, (store) => new store(noDb));
    const parts = [new SqlHolderRecords(noDb, 'kernel'), ...registry.holderRecords()];
    assert.equal(coverRegistry(parts), parts);
    const owners = new Set(HOLDER_DATA.map((c) => OWNER_OF.get(c.table)));
    assert.deepEqual(parts.map((p) => p.owner).sort(), [...owners].sort());
    for (const part of parts) assert.ok(part.positions.every((i) => OWNER_OF.get(HOLDER_DATA[i]?.table as never) === part.owner));
  });

  test('a probe: an entry no part runs, or one two parts run, is named; a module publishing another owner’s part is refused', () => {
    const parts = [...new Set(HOLDER_DATA.map((c) => OWNER_OF.get(c.table)))].flatMap((owner) =>
      owner ? [new SqlHolderRecords(noDb, owner)] : [],
    );
    assert.throws(
      () => coverRegistry(parts.filter((p) => p.owner !== 'directory')),
      /no module runs the holder-data entries .*directory_contacts\.account_id \(directory\)/,
    );
    const twice = [...parts, new SqlHolderRecords(noDb, 'holders')];
    assert.throws(() => coverRegistry(twice), /holder_jti\.account_id is run by the holder records of holders and holders/);

    const impostor = holderRecordsOf('wallet');
    const module = defineModule({
      name: 'impostor',
      groups: [],
      owns: [impostor],
      holderRecords: impostor,
      build: () => ({ services: {} }),
    });
    const registry = new ModuleRegistry([module], {} as BaseContext, (store) => new store(noDb));
    assert.throws(() => registry.holderRecords(), /module impostor publishes the holder records of wallet/);
    const unowned = defineModule({
      name: 'unowned',
      groups: [],
      holderRecords: holderRecordsOf('holders'),
      build: () => ({ services: {} }),
    });
    assert.throws(
      () => new ModuleRegistry([unowned], {} as BaseContext, (store) => new store(noDb)),
      /module unowned publishes SqlHolderRecords\(holders\) as its holder records but does not own it/,
    );
  });
});
