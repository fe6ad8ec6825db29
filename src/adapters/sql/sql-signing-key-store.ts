import type { Selectable } from 'kysely';
import type { KeyPurpose, SigningKeyStore, StoredSigningKey } from '../../ports/signing-key-store.ts';
import type { Db } from './connect.ts';
import { json, rowCodec } from './row-codec.ts';
import type { SigningKeysTable } from './schema.ts';
import { Statement } from './statement.ts';

const keys = rowCodec<StoredSigningKey, SigningKeysTable>()('tenant kid purpose sealedPrivateJwk createdAt', { publicJwk: json });
const toKey = keys.record;

const activeKey = new Statement<Selectable<SigningKeysTable>>(
  'select * from signing_keys where tenant = ? and purpose = ? and retired_at is null and superseded_at is null',
);
const publishedKeys = new Statement<Selectable<SigningKeysTable>>(
  'select * from signing_keys where tenant = ? and retired_at is null order by created_at, kid',
);

export class SqlSigningKeyStore implements SigningKeyStore {
  constructor(private readonly db: Db) {}

  async insert(key: StoredSigningKey): Promise<boolean> {
    // The partial unique index signing_keys_one_active makes a second active key a no-op.
    const result = await this.db
      .insertInto('signing_keys')
      .values(keys.row(key))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async active(tenant: string, purpose: KeyPurpose): Promise<StoredSigningKey | undefined> {
    const row = await activeKey.first(this.db, [tenant, purpose]);
    return row ? toKey(row) : undefined;
  }

  async published(tenant: string): Promise<StoredSigningKey[]> {
    return (await publishedKeys.rows(this.db, [tenant])).map(toKey);
  }

  supersede(tenant: string, kid: string, at: number): Promise<boolean> {
    return this.mark(tenant, kid, { superseded_at: at }, 'is');
  }

  retire(tenant: string, kid: string, at: number): Promise<boolean> {
    return this.mark(tenant, kid, { retired_at: at }, 'is not');
  }

  /** One conditional write on an unretired key whose `superseded_at` `is` null (to supersede it) or `is not` (to retire it). */
  private async mark(
    tenant: string,
    kid: string,
    set: { superseded_at: number } | { retired_at: number },
    superseded: 'is' | 'is not',
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('signing_keys')
      .set(set)
      .where('tenant', '=', tenant)
      .where('kid', '=', kid)
      .where('superseded_at', superseded, null)
      .where('retired_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
