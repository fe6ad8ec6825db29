import { createHash } from 'node:crypto';
import { GENESIS_HASH } from './audit-chain.ts';
import { canonicalJson } from './canonical-json.ts';

/**
 * Each tenant's deposits form a hash chain (docs/deposits.md, "Integrity"): deposit n of a tenant
 * carries the hash of deposit n-1 and its own hash covers what was deposited (the body's hash),
 * for whom, through which product, into which item, when, and that link. A deposit edited,
 * removed or slipped in afterwards breaks the chain at that point. The first links to GENESIS_HASH.
 */
export { GENESIS_HASH };

export interface DepositLink {
  tenant: string;
  seq: number;
  depositId: string;
  accountId: string;
  productId: string;
  itemId: string;
  bodyHash: string;
  createdAt: number;
  prevHash: string;
}

/** SHA-256 (hex) over the JCS form of the link's fields. */
export function depositHash(link: DepositLink): string {
  return createHash('sha256').update(canonicalJson(link), 'utf8').digest('hex');
}

/** The stored body's hash as the deposit rail computes it: SHA-256, base64url, of the canonical body. */
export const bodyHashOf = (canonicalBody: string): string =>
  createHash('sha256').update(canonicalBody, 'utf8').digest('base64url');

export type BreakReason = 'sequence' | 'link' | 'hash' | 'body' | 'head';

export interface ChainBreak {
  seq: number;
  depositId: string;
  reason: BreakReason;
}

/**
 * Walks a run of a tenant's deposits in chain order. `previous` is what the first must link to,
 * and `expectedSeq` its number. Answers the first break: a missing or repeated number (`sequence`),
 * a link to something else than the deposit before (`link`), a stored hash that is not the
 * link's (`hash`), or a body whose hash is not the one chained (`body`). A deposit erased with
 * its holder's account is checked for its number and link only.
 */
export function firstBreak(
  rows: ReadonlyArray<DepositLink & { hash: string; body: string; erasedAt?: number | null }>,
  previous = GENESIS_HASH,
  expectedSeq = 1,
): ChainBreak | undefined {
  let prev = previous;
  let seq = expectedSeq;
  for (const row of rows) {
    const { hash, body } = row;
    const link: DepositLink = {
      tenant: row.tenant,
      seq: row.seq,
      depositId: row.depositId,
      accountId: row.accountId,
      productId: row.productId,
      itemId: row.itemId,
      bodyHash: row.bodyHash,
      createdAt: row.createdAt,
      prevHash: row.prevHash,
    };
    const at = (reason: BreakReason): ChainBreak => ({ seq: row.seq, depositId: row.depositId, reason });
    if (row.seq !== seq) return at('sequence');
    if (row.prevHash !== prev) return at('link');
    // An erased deposit's fields are gone, so its hash cannot be recomputed; the next deposit's
    // link to that hash still shows a removal, an insertion or a reordering around it.
    if (!row.erasedAt) {
      if (depositHash(link) !== hash) return at('hash');
      if (bodyHashOf(body) !== row.bodyHash) return at('body');
    }
    prev = hash;
    seq++;
  }
  return undefined;
}
