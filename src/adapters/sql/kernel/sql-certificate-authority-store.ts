import type { CertificateAuthorityStore, StoredAuthority } from '../../../ports/key-certifier.ts';
import type { Db } from '../connect.ts';
import { privateKeyColumns, privateKeyOf } from './private-key-columns.ts';

/** The one platform authority's row. */
const PLATFORM = 'platform';

export class SqlCertificateAuthorityStore implements CertificateAuthorityStore {
  constructor(private readonly db: Db) {}

  async get(): Promise<StoredAuthority | undefined> {
    const row = await this.db.selectFrom('certificate_authority').selectAll().where('id', '=', PLATFORM).executeTakeFirst();
    return row
      ? {
          certificate: row.certificate,
          privateKey: privateKeyOf(row, 'the platform authority'),
          createdAt: Number(row.created_at),
        }
      : undefined;
  }

  async putIfAbsent(authority: StoredAuthority): Promise<boolean> {
    const result = await this.db
      .insertInto('certificate_authority')
      .values({
        id: PLATFORM,
        certificate: authority.certificate,
        ...privateKeyColumns(authority.privateKey),
        created_at: authority.createdAt,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }
}
