import { type ClaimSpec, formatClaimSpec, parseClaimSpecs } from '../../core/claims/claim-spec.ts';
import type { CredentialTypeRecord, CredentialTypeStore } from '../../ports/credential-type-store.ts';
import type { Db } from './connect.ts';
import { type Conv, rowCodec } from './row-codec.ts';
import type { CredentialTypesTable } from './schema.ts';

/** Claims are stored as a JSON array of their canonical spec strings. */
const claimSpecs: Conv<ClaimSpec[], string> = {
  write: (claims) => JSON.stringify(claims.map(formatClaimSpec)),
  read: (stored) => parseClaimSpecs(JSON.parse(stored as string) as string[]),
};
const types = rowCodec<CredentialTypeRecord, CredentialTypesTable>()('tenant typeId name createdAt', { claims: claimSpecs });
const toRecord = types.record;

export class SqlCredentialTypeStore implements CredentialTypeStore {
  constructor(private readonly db: Db) {}

  async create(t: CredentialTypeRecord): Promise<boolean> {
    // Any unique conflict (on either engine) writes nothing and leaves the transaction usable.
    const result = await this.db
      .insertInto('credential_types')
      .values(types.row(t))
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async get(tenant: string, typeId: string): Promise<CredentialTypeRecord | undefined> {
    const row = await this.db
      .selectFrom('credential_types')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async list(tenant: string): Promise<CredentialTypeRecord[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .selectAll()
      .where('tenant', '=', tenant)
      .orderBy('created_at')
      .orderBy('type_id')
      .execute();
    return rows.map(toRecord);
  }

  async catalog(): Promise<CredentialTypeRecord[]> {
    const rows = await this.db
      .selectFrom('credential_types')
      .selectAll()
      .orderBy('tenant')
      .orderBy('created_at')
      .orderBy('type_id')
      .execute();
    return rows.map(toRecord);
  }
}
