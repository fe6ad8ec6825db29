import type { Selectable } from 'kysely';
import { formatClaimSpec, parseClaimSpecs } from '../../core/claims/claim-spec.ts';
import type { CredentialTypeRecord, CredentialTypeStore } from '../../ports/credential-type-store.ts';
import type { Db } from './connect.ts';
import type { CredentialTypesTable } from './schema.ts';

const toRecord = (row: Selectable<CredentialTypesTable>): CredentialTypeRecord => ({
  tenant: row.tenant,
  typeId: row.type_id,
  name: row.name,
  claims: parseClaimSpecs(JSON.parse(row.claims) as string[]),
  createdAt: row.created_at,
});

export class SqlCredentialTypeStore implements CredentialTypeStore {
  constructor(private readonly db: Db) {}

  async create(t: CredentialTypeRecord): Promise<boolean> {
    // Any unique conflict (on either engine) writes nothing and leaves the transaction usable.
    const result = await this.db
      .insertInto('credential_types')
      .values({
        tenant: t.tenant,
        type_id: t.typeId,
        name: t.name,
        claims: JSON.stringify(t.claims.map(formatClaimSpec)),
        created_at: t.createdAt,
      })
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
