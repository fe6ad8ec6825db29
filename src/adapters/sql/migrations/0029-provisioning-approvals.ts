import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A provisioning request is an approval of the one four-eyes desk (action `token.mint`, docs/
 * integration.md): each row of `provisioning_requests` moves to `approvals` under its own id, with
 * its parameters, reason, state, times and decider, and the token it minted as the approval's
 * result; the table then goes. A token's `request_id` names the approval from now on.
 */
export const provisioningApprovals: Migration = {
  async up(db: Kysely<unknown>) {
    const rows = await sql<{
      id: string;
      tenant: string;
      label: string;
      scopes: string;
      rate_class: string;
      reason: string;
      state: string;
      requested_by: string;
      created_at: number | string;
      expires_at: number | string;
      decided_by: string | null;
      decided_at: number | string | null;
      note: string | null;
      token_id: string | null;
    }>`select * from provisioning_requests order by created_at, id`.execute(db);
    for (const r of rows.rows) {
      const params = JSON.stringify({ tenant: r.tenant, label: r.label, scopes: JSON.parse(r.scopes), rateClass: r.rate_class });
      const result = r.token_id === null ? null : JSON.stringify({ tokenId: r.token_id });
      await sql`insert into approvals (id, action, params, tenant, account_id, state, reason, requested_by, requested_at,
                  expires_at, decided_by, decided_at, note, result, result_private, result_expires_at)
                values (${r.id}, 'token.mint', ${params}, ${r.tenant}, null, ${r.state}, ${r.reason}, ${r.requested_by},
                  ${Number(r.created_at)}, ${Number(r.expires_at)}, ${r.decided_by},
                  ${r.decided_at === null ? null : Number(r.decided_at)}, ${r.note}, ${result}, 0, null)`.execute(db);
    }
    await db.schema.dropTable('provisioning_requests').execute();
  },
};
