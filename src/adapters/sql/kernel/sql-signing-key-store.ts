import type { Selectable } from 'kysely';
import type { KeyCertificate, KeyCertificateRenewals } from '../../../ports/key-certifier.ts';
import type { KeyPurpose, SigningKeyStore, StoredSigningKey } from '../../../ports/signing-key-store.ts';
import type { Db } from '../connect.ts';
import { json, rowCodec } from '../row-codec.ts';
import type { PrivateKeyColumns, SigningKeysTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import { privateKeyColumns, privateKeyOf } from './private-key-columns.ts';

const keys = rowCodec<Omit<StoredSigningKey, 'certificate' | 'privateKey'>, Omit<SigningKeysTable, OtherColumns>>()(
  'tenant kid purpose createdAt',
  { publicJwk: json },
);
type CertificateColumns = 'certificate_chain' | 'certificate_not_after' | 'certificate_authority';
type OtherColumns = CertificateColumns | keyof PrivateKeyColumns;

/** The certificate sits in two columns: the chain, and when it ends (which renewal looks for). */
const certificateColumns = (c: KeyCertificate | undefined) => ({
  certificate_chain: c ? JSON.stringify(c.chain) : null,
  certificate_not_after: c ? c.notAfter : null,
  certificate_authority: c ? c.authority : null,
});

function toKey(row: Selectable<SigningKeysTable>): StoredSigningKey {
  const key: StoredSigningKey = { ...keys.record(row), privateKey: privateKeyOf(row, `signing key ${row.kid}`) };
  if (row.certificate_chain !== null && row.certificate_not_after !== null && row.certificate_authority !== null) {
    key.certificate = {
      chain: JSON.parse(row.certificate_chain) as string[],
      notAfter: Number(row.certificate_not_after),
      authority: row.certificate_authority,
    };
  }
  return key;
}

const activeKey = new Statement<Selectable<SigningKeysTable>>(
  'select * from signing_keys where tenant = ? and purpose = ? and retired_at is null and superseded_at is null',
);
const publishedKeys = new Statement<Selectable<SigningKeysTable>>(
  'select * from signing_keys where tenant = ? and retired_at is null order by created_at, kid',
);

/** Inserts a signing key; false when none was inserted. kernel-statements.ts publishes it to the tenants' store. */
export async function insertSigningKey(db: Db, key: StoredSigningKey): Promise<boolean> {
  // The partial unique index signing_keys_one_active makes a second active key a no-op.
  const result = await db
    .insertInto('signing_keys')
    .values({ ...keys.row(key), ...privateKeyColumns(key.privateKey), ...certificateColumns(key.certificate) })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export class SqlSigningKeyStore implements SigningKeyStore {
  constructor(private readonly db: Db) {}

  insert(key: StoredSigningKey): Promise<boolean> {
    return insertSigningKey(this.db, key);
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

/** Renewal across every tenant's keys: the platform's certificate job only (docs/haip.md). */
export class SqlKeyCertificateRenewals implements KeyCertificateRenewals {
  constructor(private readonly db: Db) {}

  async due(before: number, authority: string, limit: number): Promise<StoredSigningKey[]> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('retired_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb('certificate_not_after', 'is', null),
          eb('certificate_not_after', '<', before),
          eb('certificate_authority', '<>', authority),
        ]),
      )
      .orderBy('created_at')
      .orderBy('kid')
      .limit(limit)
      .execute();
    return rows.map(toKey);
  }

  async renew(key: StoredSigningKey, certificate: KeyCertificate): Promise<boolean> {
    // Compared by the chain it had: another process that renewed it first wrote another one.
    const was = key.certificate ? JSON.stringify(key.certificate.chain) : null;
    const result = await this.db
      .updateTable('signing_keys')
      .set(certificateColumns(certificate))
      .where('tenant', '=', key.tenant)
      .where('kid', '=', key.kid)
      .where('certificate_chain', was === null ? 'is' : '=', was)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async certifiedBy(authority: string): Promise<number> {
    const row = await this.db
      .selectFrom('signing_keys')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('retired_at', 'is', null)
      .where('certificate_authority', '=', authority)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
