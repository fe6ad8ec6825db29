import { firstBreak, GENESIS_HASH } from '../../core/deposit-chain.ts';
import { ServiceError } from '../../core/errors.ts';
import { cursorOf, type ListParams, page, windowOf } from '../../http/admin/kit.ts';
import type { ChainedDeposit, DepositStore } from '../../ports/deposit-store.ts';

const WALK_PAGE = 1000;

const summary = (d: ChainedDeposit) => {
  const body = (d.erasedAt === null ? JSON.parse(d.body) : {}) as { kind?: string; contractVersion?: string };
  return {
    depositId: d.depositId,
    tenant: d.tenant,
    accountId: d.accountId,
    productId: d.productId,
    itemId: d.itemId,
    kind: body.kind ?? '',
    contractVersion: body.contractVersion ?? '',
    createdAt: new Date(d.createdAt).toISOString(),
    chainSeq: d.chainSeq,
    erasedAt: d.erasedAt === null ? null : new Date(d.erasedAt).toISOString(),
  };
};

/**
 * Deposits as the integration back office sees them (docs/deposits.md, "Integrity"): a tenant's
 * deposits, one with its body and chain link, and the recomputation of each tenant's hash chain.
 */
export class DepositViews {
  constructor(private readonly store: DepositStore) {}

  /** One tenant's deposits, newest first, on the back office's list convention (docs/backoffice.md, "Conventions"). */
  async list(tenant: string, p: ListParams) {
    const after = cursorOf(p.after, ['number']);
    const rows = await this.store.deposits(tenant, p.limit + 1, { ...windowOf(p), ...(after ? { beforeSeq: after[0] } : {}) });
    const shown = page(rows, p.limit, (d) => [d.chainSeq], summary);
    return { deposits: shown.rows, nextCursor: shown.nextCursor };
  }

  async get(tenant: string, depositId: string) {
    const found = await this.store.deposit(tenant, depositId);
    if (!found) throw new ServiceError('unknown_deposit', `The tenant has no deposit ${depositId}.`);
    return {
      ...summary(found),
      body: found.erasedAt === null ? (JSON.parse(found.body) as Record<string, unknown>) : null,
      bodyHash: found.bodyHash,
      prevHash: found.prevHash,
      chainHash: found.chainHash,
    };
  }

  /**
   * Walks each tenant's chain from its first deposit, recomputing every hash, and names the first
   * break; the chain must also end at the tenant's head (a deleted last deposit shows there).
   */
  async integrity(tenant: string | undefined) {
    const tenants = tenant === undefined ? await this.store.chainTenants() : [tenant];
    const results = [];
    for (const t of tenants) results.push(await this.walk(t));
    return { intact: results.every((r) => r.intact), tenants: results };
  }

  private async walk(tenant: string) {
    const head = await this.store.chainHead(tenant);
    let prev = GENESIS_HASH;
    let seq = 0;
    let broken: { seq: number; depositId: string | null; reason: string } | undefined;
    for (;;) {
      const rows = await this.store.chain(tenant, seq, WALK_PAGE);
      if (rows.length === 0) break;
      const run = rows.map((d) => ({ ...d, seq: d.chainSeq, hash: d.chainHash }));
      broken = firstBreak(run, prev, seq + 1);
      if (broken) break;
      const last = rows.at(-1) as ChainedDeposit;
      prev = last.chainHash;
      seq = last.chainSeq;
    }
    if (!broken && head && (head.seq !== seq || head.hash !== prev)) broken = { seq: head.seq, depositId: null, reason: 'head' };
    return {
      tenant,
      deposits: head?.seq ?? 0,
      head: head && { seq: head.seq, hash: head.hash },
      intact: broken === undefined,
      firstBreak: broken ?? null,
    };
  }
}
