import type { Static } from '@sinclair/typebox';
import type { Actor } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { bodyHashOf } from '../../core/deposit-chain.ts';
import { normaliseName } from '../../core/display-text.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { isDemoSlug } from '../../core/slug.ts';
import { cursorOf, type PageParams, page, windowOf } from '../../http/list.ts';
import type { DepositKind, DepositStore, ProductRecord } from '../../ports/deposit-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';
import type { TenantService } from '../tenants/tenant-service.ts';
import type { DepositAnswer as DepositAnswerSchema, DepositContract, Money as MoneySchema, Product } from './routes.ts';

/** The deposit contracts this service speaks (docs/deposits.md). */
export const SUPPORTED_CONTRACTS = ['0.3.0'] as const;

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export type Money = Static<typeof MoneySchema>;

/** Contract 0.3.0 (fixed, docs/deposits.md). */
export type DepositBody = Static<typeof DepositContract>;

export type DepositAnswer = Static<typeof DepositAnswerSchema>;

export type ProductView = Static<typeof Product>;

/** The deposit as its holder receives it on acceptance: the body, its tenant and its item. */
export type DepositContents = DepositBody & { tenant: string; itemId: string };

/** JSON with every object's keys in order, so two spellings of one body hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const productView = (p: ProductRecord): ProductView => ({
  productId: p.id,
  tenant: p.tenant,
  kind: p.kind,
  name: p.name,
  requireChannel: p.requireChannel,
  approved: p.approvedAt !== null,
  approvedAt: p.approvedAt === null ? null : new Date(p.approvedAt).toISOString(),
  createdAt: new Date(p.createdAt).toISOString(),
});

/** The deposit rail and its products (docs/deposits.md). */
export class DepositService {
  constructor(
    private readonly store: DepositStore,
    private readonly uow: UnitOfWork,
    private readonly tenants: TenantService,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  /** Refuses a contract version this service does not speak, before the body is validated. */
  static checkContract(body: unknown): void {
    const version = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).contractVersion : undefined;
    if (!(SUPPORTED_CONTRACTS as readonly unknown[]).includes(version)) {
      throw new ServiceError('unsupported_contract', `contractVersion must be one of: ${SUPPORTED_CONTRACTS.join(', ')}.`);
    }
  }

  /**
   * POST /api/tenants/{tenant}/bills. `created` is false when the same body was delivered before
   * (the same answer again); a different body under the same depositId is deposit_conflict.
   */
  async deposit(tenant: string, body: DepositBody, actor: Actor): Promise<{ created: boolean; answer: DepositAnswer }> {
    // A suspended tenant puts nothing in wallets, as it issues nothing (docs/backoffice/orgs.md).
    await this.tenants.issuing(tenant);
    checkMoney(body);
    const canonical = canonicalJson(body);
    const bodyHash = bodyHashOf(canonical);
    return this.uow.run(async ({ audit }) => {
      const earlier = await this.store.deposit(tenant, body.depositId);
      if (earlier) return { created: false, answer: await replay(this.store, earlier, bodyHash) };
      const product = await this.store.productFor(tenant, body.kind);
      if (!product || product.approvedAt === null) {
        throw new ServiceError('no_approved_product', `The tenant has no approved product for ${body.kind} deposits.`);
      }
      if (product.requireChannel && (await this.store.channelState(tenant, body.accountId)) !== 'active') {
        throw new ServiceError('channel_required', 'This product deposits only over an active channel with the account.');
      }
      const now = this.clock.now();
      const itemId = this.ids.mint('item');
      const added = await this.store.addDeposit({
        tenant,
        depositId: body.depositId,
        accountId: body.accountId,
        productId: product.id,
        itemId,
        body: canonical,
        bodyHash,
        createdAt: now,
      });
      if (!added) {
        // A concurrent first delivery committed between the read above and this insert.
        const winner = await this.store.deposit(tenant, body.depositId);
        if (!winner) throw new Error('deposit vanished after a conflicting insert');
        return { created: false, answer: await replay(this.store, winner, bodyHash) };
      }
      await this.store.putInWallet({
        id: itemId,
        tenant,
        accountId: body.accountId,
        kind: 'deposit',
        ref: body.depositId,
        title: body.title,
        state: 'pending',
        demo: isDemoSlug(tenant),
        createdAt: now,
        updatedAt: now,
        expiresAt: null,
      });
      const data = { depositId: body.depositId, itemId, accountId: body.accountId, kind: body.kind, productId: product.id };
      await audit.append({ actor, action: 'deposit.created', tenant, target: body.depositId, detail: data }, [
        { type: 'deposit.created', tenant, data },
      ]);
      return { created: true, answer: { depositId: body.depositId, itemId, state: 'pending' } };
    });
  }

  async createProduct(
    input: { tenant: string; kind: DepositKind; name: string; requireChannel?: boolean },
    actor: Actor,
  ): Promise<ProductView> {
    await this.tenants.get(input.tenant);
    const now = this.clock.now();
    const product: ProductRecord = {
      id: this.ids.mint('product'),
      tenant: input.tenant,
      kind: input.kind,
      name: normaliseName(input.name),
      requireChannel: input.requireChannel ?? false,
      approvedAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.uow.run(async ({ audit }) => {
      if (!(await this.store.addProduct(product))) {
        throw new ServiceError('conflict', `The tenant already has a product for ${input.kind} deposits.`);
      }
      const detail = { kind: product.kind, name: product.name, requireChannel: product.requireChannel };
      await audit.append({ actor, action: 'product.created', tenant: product.tenant, target: product.id, detail });
    });
    return productView(product);
  }

  async productOf(tenant: string, kind: DepositKind): Promise<ProductView | undefined> {
    const product = await this.store.productFor(tenant, kind);
    return product && productView(product);
  }

  /** Products newest first (the list convention, http/list.ts). */
  async listProducts(tenant: string | undefined, q: PageParams) {
    const after = cursorOf(q.after, ['number', 'string'] as const);
    const rows = await this.store.products(tenant, { ...windowOf(q), limit: q.limit + 1, after });
    const shown = page(rows, q.limit, (p) => [p.createdAt, p.id], productView);
    return { products: shown.rows, nextCursor: shown.nextCursor };
  }

  /** Platform operators approve; approving an approved product answers it unchanged. */
  async approve(productId: string, actor: Actor): Promise<ProductView> {
    return this.uow.run(async ({ audit }) => {
      const product = await this.store.product(productId);
      if (!product) throw new ServiceError('unknown_product', 'No product has this id.');
      const now = this.clock.now();
      if (!(await this.store.approve(productId, now))) return productView(product);
      await audit.append({ actor, action: 'product.approved', tenant: product.tenant, target: product.id, detail: {} });
      return productView({ ...product, approvedAt: now, updatedAt: now });
    });
  }

  async requireChannel(tenant: string, productId: string, required: boolean, actor: Actor): Promise<ProductView> {
    return this.uow.run(async ({ audit }) => {
      const product = await this.store.product(productId);
      if (!product || product.tenant !== tenant)
        throw new ServiceError('unknown_product', 'The tenant has no product with this id.');
      const now = this.clock.now();
      await this.store.setRequireChannel(tenant, productId, required, now);
      await audit.append({ actor, action: 'product.require_channel', tenant, target: productId, detail: { required } });
      return productView({ ...product, requireChannel: required, updatedAt: now });
    });
  }

  /** The deposit behind an item, as its holder receives it. */
  static contents(tenant: string, itemId: string, body: string): DepositContents {
    return { ...(JSON.parse(body) as DepositBody), tenant, itemId };
  }
}

async function replay(
  deposits: DepositStore,
  earlier: { bodyHash: string; depositId: string; itemId: string; tenant: string; erasedAt?: number | null },
  bodyHash: string,
) {
  if (earlier.erasedAt) {
    throw new ServiceError(
      'deposit_conflict',
      'The deposit under this depositId was erased at its holder’s request; the depositId cannot be used again.',
    );
  }
  if (earlier.bodyHash !== bodyHash) {
    throw new ServiceError('deposit_conflict', 'A different deposit was delivered under this depositId.');
  }
  const state = await deposits.itemState(earlier.tenant, earlier.depositId);
  return { depositId: earlier.depositId, itemId: earlier.itemId, state: state ?? 'pending' };
}

/** Currencies are ISO 4217 codes; a deposit and its lines carry one currency. */
export function checkMoney(body: DepositBody): void {
  const amounts = [body.amount, ...(body.lines ?? []).map((l) => l.amount)].filter((a): a is Money => a !== undefined);
  for (const a of amounts) {
    if (!CURRENCIES.has(a.currency)) throw new ServiceError('invalid_currency', `${a.currency} is not an ISO 4217 currency.`);
  }
  if (amounts.some((a) => a.currency !== amounts[0]?.currency)) {
    throw new ServiceError('invalid_currency', 'A deposit and its lines carry one currency.');
  }
  if (body.lines?.some((l) => l.amount) && !body.amount) {
    throw new ServiceError('invalid_request', 'Lines with amounts need the deposit amount too.');
  }
  for (const at of [body.issuedAt, body.dueAt]) {
    if (at !== undefined && Number.isNaN(Date.parse(at))) throw new ServiceError('invalid_request', `${at} is not a date-time.`);
  }
}
