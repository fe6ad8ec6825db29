import type { PrivateKeyRef } from '../../../ports/key-backend.ts';
import type { CertificateAuthorityStore, StoredAuthority } from '../../../ports/key-certifier.ts';
import type { Db } from '../connect.ts';
import { privateKeyColumns, privateKeyOf } from './private-key-columns.ts';

/** The platform roots, one row each (migration 0046); a retired root keeps its certificate only. */
export class SqlCertificateAuthorityStore implements CertificateAuthorityStore {
  constructor(private readonly db: Db) {}

  async list(): Promise<StoredAuthority[]> {
    const rows = await this.db
      .selectFrom('certificate_authority')
      .selectAll()
      .orderBy('active_from')
      .orderBy('created_at')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      certificate: row.certificate,
      privateKey: row.retired_at === null ? privateKeyOf(row, `the platform root ${row.id}`) : null,
      createdAt: Number(row.created_at),
      activeFrom: Number(row.active_from),
    }));
  }

  async putIfAbsent(authority: StoredAuthority & { privateKey: PrivateKeyRef }): Promise<boolean> {
    const result = await this.db
      .insertInto('certificate_authority')
      .values({
        id: authority.id,
        certificate: authority.certificate,
        ...privateKeyColumns(authority.privateKey),
        created_at: authority.createdAt,
        active_from: authority.activeFrom,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async retire(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('certificate_authority')
      .set({ retired_at: now, sealed_private_key: null, token_label: null, object_label: null, object_id: null })
      .where('id', '=', id)
      .where('retired_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
