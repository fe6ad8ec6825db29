import { type ClaimSpec, formatClaimSpec, parseClaimSpecs } from '../../core/claims/claim-spec.ts';
import type { CredentialTypeRecord, CredentialTypeStore, TypeValidity } from '../../ports/credential-type-store.ts';
import type { Db } from './connect.ts';
import { type Conv, rowCodec } from './row-codec.ts';
import type { CredentialTypesTable, TypeValidityTable } from './schema.ts';
import { inTenant } from './windowed.ts';

/** Claims are stored as a JSON array of their canonical spec strings. */
const claimSpecs: Conv<ClaimSpec[], string> = {
  write: (claims) => JSON.stringify(claims.map(formatClaimSpec)),
  read: (stored) => parseClaimSpecs(JSON.parse(stored as string) as string[]),
};
const types = rowCodec<CredentialTypeRecord, CredentialTypesTable>()('tenant typeId name createdAt', { claims: claimSpecs });
const toRecord = types.record;
const validities = rowCodec<TypeValidity, TypeValidityTable>()('tenant typeId validityDays setAt setBy', {});

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

  async validity(tenant: string, typeId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('type_validity')
      .select('validity_days')
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .executeTakeFirst();
    return row ? Number(row.validity_days) : null;
  }

  async setValidity(tenant: string, typeId: string, days: number | null, at: number, by: string): Promise<number | null> {
    const before = await this.validity(tenant, typeId);
    if (days === null) {
      await this.db.deleteFrom('type_validity').where('tenant', '=', tenant).where('type_id', '=', typeId).execute();
    } else {
      await this.db
        .insertInto('type_validity')
        .values(validities.row({ tenant, typeId, validityDays: days, setAt: at, setBy: by }))
        .onConflict((oc) => oc.columns(['tenant', 'type_id']).doUpdateSet({ validity_days: days, set_at: at, set_by: by }))
        .execute();
    }
    return before;
  }

  async validities(tenant: string | null): Promise<TypeValidity[]> {
    const rows = await this.db
      .selectFrom('type_validity')
      .selectAll()
      .where(inTenant(tenant))
      .orderBy('tenant')
      .orderBy('type_id')
      .execute();
    return rows.map(validities.record);
  }
}
