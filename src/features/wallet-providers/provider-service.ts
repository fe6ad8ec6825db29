import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { cursorOf, type PageParams, page, windowOf } from '../../http/list.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { ProviderState, WalletProviderRecord, WalletProviderStore } from '../../ports/wallet-provider-store.ts';
import type { Provider } from './routes.ts';

export type ProviderView = Static<typeof Provider>;

/** The most admitted providers a public page lists. */
export const ADMITTED_SHOWN = 50;

const view = (p: WalletProviderRecord): ProviderView => ({
  walletId: p.id,
  name: p.name,
  homepage: p.homepage,
  contact: p.contact,
  state: p.state,
  reason: p.reason,
  createdAt: new Date(p.createdAt).toISOString(),
  updatedAt: new Date(p.updatedAt).toISOString(),
});

/** How the operator's answers move a provider (docs/wallet.md, "Wallet providers"). */
const MOVES = {
  accept: { from: ['requested', 'suspended'], to: 'admitted', audit: 'wallet.admitted' },
  reject: { from: ['requested'], to: 'rejected', audit: 'wallet.rejected' },
  suspend: { from: ['admitted'], to: 'suspended', audit: 'wallet.suspended' },
} as const;

/** The wallet providers this deployment admits: the apps it tells holders and relying parties work here. */
export class WalletProviderService {
  constructor(
    private readonly store: WalletProviderStore,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  async register(input: { name: string; homepage: string; contact?: string }, actor: Actor): Promise<ProviderView> {
    const now = this.clock.now();
    const provider: WalletProviderRecord = {
      id: this.ids.mint('walletProvider'),
      name: normaliseName(input.name),
      homepage: homepageOrigin(input.homepage),
      contact: input.contact ?? null,
      state: 'requested',
      reason: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.uow.run(async ({ audit }) => {
      if (!(await this.store.add(provider))) {
        throw new ServiceError('conflict', `A wallet provider at ${provider.homepage} is registered already.`);
      }
      const detail = { name: provider.name, homepage: provider.homepage };
      await audit.append({ actor, action: 'wallet.registered', tenant: null, target: provider.id, detail });
    });
    return view(provider);
  }

  /** The providers, newest first (the list convention, http/list.ts). */
  async list(state: ProviderState | undefined, q: PageParams) {
    const after = cursorOf(q.after, ['number', 'string'] as const);
    const rows = await this.store.list(state, { ...windowOf(q), limit: q.limit + 1, after });
    const shown = page(rows, q.limit, (p) => [p.createdAt, p.id], view);
    return { wallets: shown.rows, nextCursor: shown.nextCursor };
  }

  /** What the public pages show: the admitted providers' names and homepages. */
  async admitted(): Promise<{ name: string; homepage: string }[]> {
    return (await this.store.list('admitted', { limit: ADMITTED_SHOWN })).map((p) => ({ name: p.name, homepage: p.homepage }));
  }

  async decide(walletId: string, decision: keyof typeof MOVES, reason: string | undefined, actor: Actor) {
    const move = MOVES[decision];
    return this.uow.run(async ({ audit }) => {
      const provider = await this.store.get(walletId);
      if (!provider) throw new ServiceError('unknown_wallet', 'No wallet provider has this id.');
      const now = this.clock.now();
      const kept = decision === 'accept' ? null : (reason ?? null);
      if (!(await this.store.move(walletId, move.from, move.to, kept, now))) {
        throw new ServiceError('wallet_state', `The wallet provider is ${provider.state}: it cannot be ${move.to} from there.`);
      }
      await audit.append({ actor, action: move.audit, tenant: null, target: walletId, detail: kept ? { reason: kept } : {} });
      return view({ ...provider, state: move.to, reason: kept, updatedAt: now });
    });
  }
}

/** A provider is named by its https origin; anything else is refused. */
function homepageOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ServiceError('invalid_request', 'homepage is not an address.');
  }
  if (url.protocol !== 'https:' || url.username || url.password) {
    throw new ServiceError('invalid_request', 'homepage is an https address without credentials.');
  }
  return url.origin;
}
