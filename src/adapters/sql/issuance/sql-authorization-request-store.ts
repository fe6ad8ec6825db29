import type { Selectable } from 'kysely';
import type { Redemption } from '../../../ports/access-token-store.ts';
import type {
  AuthorizationRequestRecord,
  AuthorizationRequestStore,
  PopMark,
} from '../../../ports/authorization-request-store.ts';
import type { Db } from '../connect.ts';
import { burnMarkWrite } from '../replay-marks.ts';
import { rowCodec } from '../row-codec.ts';
import type { AuthorizationRequestsTable } from '../schema.ts';
import { Statement } from '../statement.ts';
import {
  ISSUER_OF_REQUEST,
  ISSUER_ROW,
  type IssuerColumns,
  issuerState,
  type RequestIssuerColumns,
} from '../tenants/tenants-statements.ts';
import { applyAll, type GuardedWrite } from '../write-batch.ts';
import { redemptionWrites } from './sql-access-token-store.ts';

const FIELDS =
  'id tenant requestUriHash clientId redirectUri state codeChallenge typeId attestationJkt dpopJkt offerId phase browserHash codeHash continueHash createdAt expiresAt';
const requests = rowCodec<AuthorizationRequestRecord, AuthorizationRequestsTable>()(FIELDS, {});
const toRecord = requests.record;
/** The table's columns, in the order of `FIELDS`. */
const COLUMNS = FIELDS.split(' ').map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) as Array<
  keyof AuthorizationRequestsTable
>;

const insertRequest = new Statement(
  `insert into authorization_requests (${COLUMNS.join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`,
);
const codeRedeemed = new Statement(
  "update authorization_requests set phase = 'redeemed' where tenant = ? and id = ? and phase = 'code' and expires_at > ?",
);
// The browser opens a pushed request (GET /authorize), and the approval grants its code: once per HAIP credential each.
// Each holds only while the tenant serves the flow, and the opening answers the issuer's part its page shows.
const REQUEST_TENANT = 'authorization_requests.tenant';
const openRequest = new Statement<Selectable<AuthorizationRequestsTable> & RequestIssuerColumns>(
  "update authorization_requests set phase = 'opened', browser_hash = ?, expires_at = ? " +
    "where tenant = ? and request_uri_hash = ? and client_id = ? and phase = 'pushed' and expires_at > ? " +
    `and ${ISSUER_OF_REQUEST.serving(REQUEST_TENANT)} returning *, ${ISSUER_OF_REQUEST.returned(REQUEST_TENANT)}`,
);
const grantRequestCode = new Statement<Selectable<AuthorizationRequestsTable>>(
  "update authorization_requests set phase = 'code', code_hash = ?, expires_at = ? " +
    'where tenant = ? and id = ? and phase = ? and offer_id is not null and browser_hash = ? and expires_at > ? ' +
    `and ${ISSUER_OF_REQUEST.serving(REQUEST_TENANT)} returning *`,
);
/** The issuer and its request of a code, one read (a tenant without the request still answers its row). */
const atIssuerByCode = new Statement<Partial<Selectable<AuthorizationRequestsTable>> & IssuerColumns>(
  `select ${ISSUER_ROW.columns}, r.* from ${ISSUER_ROW.from} left join authorization_requests r ` +
    `on r.tenant = ${ISSUER_ROW.slug} and r.code_hash = ? where ${ISSUER_ROW.slug} = ?`,
);

/** The proof of possession's mark at `tenant`, as a write of the batch it lets in. */
const popWrite = (tenant: string, pop: PopMark): GuardedWrite =>
  burnMarkWrite('attestation_pop_jti', { tenant, jti_hash: pop.jtiHash }, pop.expiresAt, pop.now, 'proof_used');

export class SqlAuthorizationRequestStore implements AuthorizationRequestStore {
  constructor(private readonly db: Db) {}

  /** The request and its proof's mark: one statement on PostgreSQL (write-batch.ts; docs/scaling.md). */
  async push(record: AuthorizationRequestRecord, pop: PopMark): Promise<boolean> {
    const row = requests.row(record) as Record<string, unknown>;
    const refused = await applyAll(this.db, [
      popWrite(record.tenant, pop),
      { statement: insertRequest, params: COLUMNS.map((c) => row[c] ?? null) },
    ]);
    return refused === undefined;
  }

  async get(tenant: string, id: string): Promise<AuthorizationRequestRecord | undefined> {
    const row = await this.db
      .selectFrom('authorization_requests')
      .selectAll()
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async open(tenant: string, requestUriHash: string, clientId: string, browserHash: string, now: number, expiresAt: number) {
    const row = await openRequest.first(this.db, [browserHash, expiresAt, tenant, requestUriHash, clientId, now]);
    if (!row) return undefined;
    const { issuer_sign_in_url, issuer_name, ...rest } = row;
    return { record: toRecord(rest), issuer: { signInUrl: issuer_sign_in_url, name: issuer_name } };
  }

  async approve(tenant: string, id: string, offerId: string, continueHash: string | null, now: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('authorization_requests')
      .set({ phase: 'approved', offer_id: offerId, continue_hash: continueHash })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('phase', '=', 'opened')
      .where('offer_id', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async grantCode(
    tenant: string,
    id: string,
    from: 'opened' | 'approved',
    browserHash: string,
    codeHash: string,
    now: number,
    expiresAt: number,
  ): Promise<AuthorizationRequestRecord | undefined> {
    const row = await grantRequestCode.first(this.db, [codeHash, expiresAt, tenant, id, from, browserHash, now]);
    return row ? toRecord(row) : undefined;
  }

  async decline(tenant: string, id: string, browserHash: string, now: number): Promise<boolean> {
    const moved = await this.db
      .updateTable('authorization_requests')
      .set({ phase: 'declined' })
      .where('tenant', '=', tenant)
      .where('id', '=', id)
      .where('phase', 'in', ['opened', 'approved'])
      .where('browser_hash', '=', browserHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) === 1;
  }

  async atIssuerByCode(tenant: string, codeHash: string) {
    const row = await atIssuerByCode.first(this.db, [codeHash, tenant]);
    if (!row) return {};
    const { issuer, rest } = issuerState(row);
    return rest.id == null ? { issuer } : { issuer, request: toRecord(rest as Selectable<AuthorizationRequestsTable>) };
  }

  /**
   * The code, the offer's code and the proof's mark spent and the token granted, all or nothing:
   * one statement on PostgreSQL (write-batch.ts; docs/scaling.md). The proof's mark comes first,
   * so a replayed proof is named as such whatever else was spent.
   */
  async redeem(tenant: string, id: string, redemption: Redemption, pop: PopMark) {
    if (redemption.offer.tenant !== tenant) throw new Error('a code redeems an offer of its own tenant only');
    const refused = await applyAll(this.db, [
      popWrite(tenant, pop),
      { statement: codeRedeemed, params: [tenant, id, redemption.now], expect: 1, refusal: 'spent' },
      ...redemptionWrites(redemption, 'spent'),
    ]);
    return refused === undefined ? 'redeemed' : (refused as 'proof_used' | 'spent');
  }

  async prune(now: number): Promise<number> {
    const result = await this.db.deleteFrom('authorization_requests').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
