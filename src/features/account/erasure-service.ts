import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { directoryBudgetKey } from '../../core/directory-entry.ts';
import type { Ids } from '../../core/ids.ts';
import {
  type AccountErasureStore,
  type DiskState,
  ERASURE_PARTS,
  type ErasureCounts,
  type ErasureReceipt,
} from '../../ports/account-erasure-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { ErasurePipeline } from './erasure-pipeline.ts';

export interface ErasureOptions {
  by?: Actor;
  alongside?: (receipt: ErasureReceipt) => Promise<void>;
}

export interface ErasureDeps {
  uow: UnitOfWork;
  /** The receipts. */
  store: AccountErasureStore;
  /** Each owner's part of the erasure, composed. */
  pipeline: Pick<ErasurePipeline, 'erase' | 'remaining'>;
  dropFreedBytes: () => Promise<DiskState>;
  clock: Clock;
  ids: Ids;
}

/** How often the pipeline is tried when rows for the account appear while it runs (a deposit arriving). */
const ATTEMPTS = 3;
/** Checkpoints tried at once before the disk check is left to the erasure job. */
const CHECKPOINT_TRIES = 5;

/** The platform's own events go to `root` (docs/events.md). */
const PLATFORM = 'root';

/**
 * The verified erasure of an account, asked for by its holder (docs/account.md, "Erasure"). One
 * transaction erases every part, proves that no row naming the account is left (or undoes it all),
 * keeps a receipt without personal data, and writes the audit entry and the `erasure.completed`
 * events. After it commits, the disk check makes the erased bytes leave the database files.
 */
export class ErasureService {
  constructor(private readonly d: ErasureDeps) {}

  /**
   * Erases the account. `by` names who asked when it is not the holder (an operator answering an
   * erasure request); `alongside` runs in the erasure's transaction once the receipt is made, so a
   * record of the request completes with the erasure or not at all.
   */
  async erase(accountId: string, options: ErasureOptions = {}): Promise<ErasureReceipt> {
    let receipt: ErasureReceipt | undefined;
    for (let attempt = 1; receipt === undefined; attempt++) {
      try {
        receipt = await this.eraseOnce(accountId, options);
      } catch (err) {
        if (!(err instanceof RowsLeft) || attempt >= ATTEMPTS) throw err;
      }
    }
    const disk = await this.checkDisk();
    await this.d.store.markDisk(receipt.id, disk, this.d.clock.now());
    return { ...receipt, disk, diskCheckedAt: this.d.clock.now() };
  }

  /** The erasure job: finishes the disk check of erasures that a busy checkpoint left pending. */
  async finishPending(now: number): Promise<number> {
    const pending = await this.d.store.pendingDisk(100);
    if (pending.length === 0) return 0;
    const disk = await this.checkDisk();
    if (disk === 'pending') return 0;
    for (const id of pending) await this.d.store.markDisk(id, disk, now);
    return pending.length;
  }

  /** What is held of the account now, per part (the data page). */
  held(accountId: string): Promise<ErasureCounts> {
    return this.d.pipeline.remaining(accountId, [], [directoryBudgetKey(accountId)]);
  }

  receipt(id: string): Promise<ErasureReceipt | undefined> {
    return this.d.store.receipt(id);
  }

  private async eraseOnce(accountId: string, options: ErasureOptions): Promise<ErasureReceipt> {
    const now = this.d.clock.now();
    const rateKeys = [directoryBudgetKey(accountId)];
    return this.d.uow.run(async ({ audit, events }) => {
      const { counts, tenants, endedOffers } = await this.d.pipeline.erase(accountId, now, rateKeys);
      const remaining = await this.d.pipeline.remaining(accountId, endedOffers, rateKeys);
      const left = ERASURE_PARTS.filter((part) => remaining[part] !== 0);
      if (left.length > 0) throw new RowsLeft(left);

      const receipt: ErasureReceipt = {
        id: this.d.ids.mint('erasure'),
        completedAt: now,
        counts,
        tenants: tenants.length,
        disk: 'pending',
        diskCheckedAt: null,
      };
      await this.d.store.saveReceipt(receipt);
      for (const offer of endedOffers) {
        await events.emit({
          type: 'offer.expired',
          tenant: offer.tenant,
          data: { offerId: offer.id, typeId: offer.typeId, redeemed: offer.redeemed },
        });
      }
      // The receipt's events go with its audit entry, the platform's last.
      const completed = [...tenants.filter((t) => t !== PLATFORM), PLATFORM].map((tenant) => ({
        type: 'erasure.completed' as const,
        tenant,
        data: { receiptId: receipt.id, accountId },
      }));
      await audit.append(
        {
          actor: options.by ?? { kind: 'holder', accountId },
          action: 'account.erased',
          tenant: null,
          target: receipt.id,
          detail: { counts, tenants: tenants.length },
        },
        completed,
      );
      await options.alongside?.(receipt);
      return receipt;
    });
  }

  private async checkDisk(): Promise<DiskState> {
    let disk = await this.d.dropFreedBytes();
    for (let i = 1; disk === 'pending' && i < CHECKPOINT_TRIES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50 * i));
      disk = await this.d.dropFreedBytes();
    }
    return disk;
  }
}

/** The verification pass found rows naming the account after the parts ran: nothing is kept. */
class RowsLeft extends Error {
  constructor(readonly parts: readonly string[]) {
    super(`erasure left rows naming the account in: ${parts.join(', ')}`);
  }
}
