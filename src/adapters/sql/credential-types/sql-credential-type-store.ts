import { type ClaimSpec, formatClaimSpec, parseClaimSpecs } from '../../../core/claims/claim-spec.ts';
import type {
  CredentialTypeRecord,
  CredentialTypeStore,
  KeyAttestationRequirement,
  TypeValidity,
} from '../../../ports/credential-type-store.ts';
import type { Db } from '../connect.ts';
import { insertOnce } from '../insert-once.ts';
import { type Conv, json, rowCodec } from '../row-codec.ts';
import type { CredentialTypesTable, TypeKeyAttestationTable, TypeValidityTable } from '../schema.ts';
import { inTenant } from '../windowed.ts';

/** Claims are stored as a JSON array of their canonical spec strings. */
const claimSpecs: Conv<ClaimSpec[], string> = {
  write: (claims) => JSON.stringify(claims.map(formatClaimSpec)),
  read: (stored) => parseClaimSpecs(JSON.parse(stored as string) as string[]),
};
const types = rowCodec<CredentialTypeRecord, CredentialTypesTable>()('tenant typeId name createdAt', {
  claims: claimSpecs,
  formats: json,
  mdoc: json,
});
const toRecord = types.record;
const validities = rowCodec<TypeValidity, TypeValidityTable>()('tenant typeId validityDays setAt setBy', {});

export class SqlCredentialTypeStore implements CredentialTypeStore {
  constructor(private readonly db: Db) {}

  async create(t: CredentialTypeRecord): Promise<boolean> {
    // Any unique conflict (on either engine) writes nothing and leaves the transaction usable.
    return insertOnce(this.db, 'credential_types', types.row(t));
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

  async keyAttestation(tenant: string, typeId: string): Promise<KeyAttestationRequirement | null> {
    const row = await this.db
      .selectFrom('type_key_attestation')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('type_id', '=', typeId)
      .executeTakeFirst();
    return row ? requirementOf(row) : null;
  }

  async setKeyAttestation(
    tenant: string,
    typeId: string,
    required: KeyAttestationRequirement | null,
    at: number,
    by: string,
  ): Promise<KeyAttestationRequirement | null> {
    const before = await this.keyAttestation(tenant, typeId);
    if (required === null) {
      await this.db.deleteFrom('type_key_attestation').where('tenant', '=', tenant).where('type_id', '=', typeId).execute();
    } else {
      const values = {
        key_storage: required.keyStorage ? JSON.stringify(required.keyStorage) : null,
        user_authentication: required.userAuthentication ? JSON.stringify(required.userAuthentication) : null,
        set_at: at,
        set_by: by,
      };
      await this.db
        .insertInto('type_key_attestation')
        .values({ tenant, type_id: typeId, ...values })
        .onConflict((oc) => oc.columns(['tenant', 'type_id']).doUpdateSet(values))
        .execute();
    }
    return before;
  }

  async keyAttestations(tenant: string): Promise<Map<string, KeyAttestationRequirement>> {
    const rows = await this.db.selectFrom('type_key_attestation').selectAll().where('tenant', '=', tenant).execute();
    return new Map(rows.map((row) => [row.type_id, requirementOf(row)]));
  }
}

function requirementOf(row: Pick<TypeKeyAttestationTable, 'key_storage' | 'user_authentication'>): KeyAttestationRequirement {
  return {
    ...(row.key_storage === null ? {} : { keyStorage: JSON.parse(row.key_storage) as string[] }),
    ...(row.user_authentication === null ? {} : { userAuthentication: JSON.parse(row.user_authentication) as string[] }),
  };
}
