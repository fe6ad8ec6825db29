import type { Actor } from '../../core/actor.ts';
import { ServiceError } from '../../core/errors.ts';
import type { DepositKind } from '../../ports/deposit-store.ts';
import type { MembershipService } from '../membership/membership-service.ts';
import { DEMO_TENANT, type TenantService } from '../tenants/tenant-service.ts';
import type { DepositAnswer, DepositBody, DepositService, ProductView } from './deposit-service.ts';

/** The demonstration tenant's products: one per deposit kind. */
const DEMO_PRODUCTS: { kind: DepositKind; name: string }[] = [
  { kind: 'ticket', name: 'Day ticket' },
  { kind: 'receipt', name: 'Card top-up receipt' },
  { kind: 'bill', name: 'Penalty fare' },
  { kind: 'statement', name: 'Monthly travel statement' },
];

/** What a demo account finds in its wallet: fixed bodies, so seeding again changes nothing. */
const demoDeposits = (accountId: string): DepositBody[] => [
  {
    contractVersion: '0.3.0',
    depositId: `demo-ticket-${accountId}`,
    accountId,
    kind: 'ticket',
    title: 'Day ticket, zones A and B',
    issuedAt: '2026-11-02T07:45:00Z',
    amount: { value: 790, currency: 'EUR' },
    reference: 'MT-2026-110245',
  },
  {
    contractVersion: '0.3.0',
    depositId: `demo-receipt-${accountId}`,
    accountId,
    kind: 'receipt',
    title: 'Travel card top-up',
    issuedAt: '2026-11-01T18:12:00Z',
    amount: { value: 2500, currency: 'EUR' },
    lines: [
      { label: 'Top-up', amount: { value: 2500, currency: 'EUR' } },
      { label: 'Card fee', amount: { value: 0, currency: 'EUR' } },
    ],
  },
  {
    contractVersion: '0.3.0',
    depositId: `demo-statement-${accountId}`,
    accountId,
    kind: 'statement',
    title: 'October travel statement',
    issuedAt: '2026-11-01T06:00:00Z',
    amount: { value: 4630, currency: 'EUR' },
    dueAt: '2026-11-30T23:59:59Z',
    lines: [
      { label: '14 single journeys', amount: { value: 2240, currency: 'EUR' } },
      { label: '3 day tickets', amount: { value: 2370, currency: 'EUR' } },
      { label: 'Bike on board', amount: { value: 20, currency: 'EUR' } },
    ],
  },
];

/**
 * POST /api/demo/seed (docs/deposits.md): the demonstration tenant, its approved products and,
 * for an account, a membership and a few deposits. Everything it makes is the demo tenant's, so
 * it is marked as fixture data wherever it appears, and it never touches another tenant.
 */
export class DemoSeed {
  constructor(
    private readonly tenants: TenantService,
    private readonly deposits: DepositService,
    private readonly members: MembershipService,
    private readonly platformName: string,
  ) {}

  async seed(accountId: string | undefined, actor: Actor) {
    await this.tenants.seed({ demo: true, platformName: this.platformName });
    const products: ProductView[] = [];
    for (const p of DEMO_PRODUCTS) products.push(await this.product(p.kind, p.name, actor));
    const items: DepositAnswer[] = [];
    if (accountId !== undefined) {
      await this.members
        .enrolByOperator({ tenant: DEMO_TENANT.slug, accountId, displayName: 'Demo rider' }, actor)
        .catch((err: unknown) => {
          if (!(err instanceof ServiceError && err.code === 'already_member')) throw err;
        });
      for (const body of demoDeposits(accountId)) {
        items.push((await this.deposits.deposit(DEMO_TENANT.slug, body, actor)).answer);
      }
    }
    const tenant = await this.tenants.get(DEMO_TENANT.slug);
    return {
      fixtures: true,
      tenant: { slug: tenant.slug, name: tenant.name },
      products,
      ...(accountId === undefined ? {} : { accountId }),
      items,
    };
  }

  /** The demo tenant's product of this kind, made and approved if need be. */
  private async product(kind: DepositKind, name: string, actor: Actor): Promise<ProductView> {
    const existing = await this.deposits.productOf(DEMO_TENANT.slug, kind);
    const product =
      existing ??
      (await this.deposits.createProduct({ tenant: DEMO_TENANT.slug, kind, name }, actor).catch(async (err) => {
        // A concurrent seed made it first.
        const made = await this.deposits.productOf(DEMO_TENANT.slug, kind);
        if (!made) throw err;
        return made;
      }));
    return product.approved ? product : this.deposits.approve(product.productId, actor);
  }
}
