import { Type } from '@sinclair/typebox';
import { idPattern } from '../../core/ids.ts';
import { operatorActor, operatorOf } from '../../http/auth/operator-bearer.ts';
import { ListPage, PageQuery, pageParams } from '../../http/list.ts';
import { defineRoute, type RouteGroup } from '../../http/route.ts';
import { AccountId, DisplayName, DisplayText, Narrowed, OPERATOR_ERRORS, refusal, Slug } from '../../http/schemas/common.ts';
import { DEPOSIT_KINDS, type DepositKind } from '../../ports/deposit-store.ts';
import type { DemoSeed } from './demo-seed.ts';
import { type DepositBody, DepositService, SUPPORTED_CONTRACTS } from './deposit-service.ts';

const Kind = Type.Union(DEPOSIT_KINDS.map((k) => Type.Literal(k)));
const DateTime = Type.String({ format: 'date-time', maxLength: 40 });
/** Minor units, so integers; bounded well inside the doubles JSON numbers are read as. */
export const Money = Type.Object(
  {
    value: Type.Integer({ minimum: -1e15, maximum: 1e15, description: 'Minor units (cents for EUR).' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217.' }),
  },
  { additionalProperties: false },
);
const ProductId = Type.String({ pattern: idPattern('product') });

/** Contract 0.3.0, fixed (docs/deposits.md). */
export const DepositContract = Type.Object(
  {
    contractVersion: Type.String({ maxLength: 16, description: `One of ${SUPPORTED_CONTRACTS.join(', ')}.` }),
    depositId: Type.String({ pattern: '^[A-Za-z0-9._:-]{1,64}$', description: 'The caller’s idempotency key.' }),
    accountId: AccountId,
    kind: Kind,
    title: DisplayText(200),
    issuedAt: DateTime,
    amount: Type.Optional(Money),
    dueAt: Type.Optional(DateTime),
    reference: Type.Optional(DisplayText(100)),
    lines: Type.Optional(
      Type.Array(Type.Object({ label: DisplayText(200), amount: Type.Optional(Money) }, { additionalProperties: false }), {
        maxItems: 100,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        contractVersion: '0.3.0',
        depositId: 'WB-2030-10-4471',
        accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        kind: 'bill',
        title: 'Water, October',
        issuedAt: '2030-11-01T08:00:00Z',
        amount: { value: 4215, currency: 'EUR' },
        dueAt: '2030-11-30T23:59:59Z',
        reference: 'WB-2030-10-4471',
        lines: [
          { label: 'Standing charge', amount: { value: 1200, currency: 'EUR' } },
          { label: '12 m³ at 2.51', amount: { value: 3015, currency: 'EUR' } },
        ],
      },
    ],
  },
);

/** The deposit as its holder receives it (response schema: plain strings, no request patterns). */
const MoneyView = Type.Object({ value: Type.Integer(), currency: Type.String() });
export const DepositView = Type.Object(
  {
    contractVersion: Type.String(),
    depositId: Type.String(),
    accountId: Type.String(),
    kind: Type.String(),
    title: Type.String(),
    issuedAt: Type.String(),
    amount: Type.Optional(MoneyView),
    dueAt: Type.Optional(Type.String()),
    reference: Type.Optional(Type.String()),
    lines: Type.Optional(Type.Array(Type.Object({ label: Type.String(), amount: Type.Optional(MoneyView) }))),
    tenant: Type.String(),
    itemId: Type.String(),
  },
  { description: 'The deposit as delivered (contract 0.3.0), its tenant and item (docs/deposits.md).' },
);

/** What a deposit answers: the deposit, the wallet item it made, and that item's state. */
export const DepositAnswer = Type.Object({ depositId: Type.String(), itemId: Type.String(), state: Type.String() });

export const Product = Type.Object({
  productId: Type.String(),
  tenant: Type.String(),
  kind: Narrowed<DepositKind>(Type.String()),
  name: Type.String(),
  requireChannel: Type.Boolean(),
  approved: Type.Boolean(),
  approvedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
});

const DEPOSIT_ROLES = ['owner', 'tenant-admin', 'issuer'] as const;
const PRODUCT_ROLES = ['owner', 'tenant-admin'] as const;

export function depositRoutes(deposits: DepositService, demo: DemoSeed): RouteGroup {
  return {
    name: 'deposits',
    routes: [
      defineRoute({
        method: 'POST',
        path: '/api/tenants/{tenant}/bills',
        aliases: ['/v1/tenants/{tenant}/bills'],
        auth: 'operator',
        roles: [...DEPOSIT_ROLES],
        scope: { tenantIn: 'params' },
        scopes: ['deposits'],
        stability: 'promised',
        // Interface, Participation plane: the body is "not shown", and so is the response. The
        // answer stays as docs/deposits.md states it, but is not promised.
        undocumented:
          'The interface shows neither the deposit’s body (contract 0.3.0) nor its answer; docs/deposits.md states both, and the answer openrail gives today is not promised.',
        summary:
          'Deposit a business event (bill, receipt, ticket, statement) into a holder’s wallet: contract 0.3.0 (docs/deposits.md).',
        params: Type.Object({ tenant: Slug }),
        body: DepositContract,
        beforeValidation: (request) => DepositService.checkContract(request.body),
        responses: {
          200: { description: 'The same body was delivered before: the same answer.', schema: DepositAnswer },
          201: { description: 'The deposit, now a wallet item.', schema: DepositAnswer },
          ...OPERATOR_ERRORS,
          400: refusal(['unsupported_contract', 'invalid_currency', 'invalid_request', 'malformed_json']),
          403: refusal(['forbidden', 'tenant_suspended'], 'forbidden: the credential lacks the role or tenant scope.'),
          404: refusal('unknown_tenant'),
          409: refusal(['deposit_conflict', 'no_approved_product', 'channel_required']),
        },
        handler: async (request, reply) => {
          const { created, answer } = await deposits.deposit(
            request.params.tenant,
            request.body as DepositBody,
            operatorActor(operatorOf(request)),
          );
          return reply.code(created ? 201 : 200).send(answer);
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/api/products',
        auth: 'operator',
        roles: [...PRODUCT_ROLES, 'issuer', 'support'],
        scope: { tenantIn: 'query' },
        scopes: ['deposits'],
        stability: 'unpromised',
        internal: true,
        summary:
          'The products tenants deposit through; one tenant’s, or every tenant’s for a platform operator (docs/deposits.md).',
        querystring: PageQuery({ tenant: Type.Optional(Slug) }),
        responses: {
          200: { description: 'Products newest first; nextCursor null on the last page.', schema: ListPage('products', Product) },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => {
          return deposits.listProducts(request.query.tenant, pageParams(request.query));
        },
      }),
      defineRoute({
        method: 'POST',
        path: '/api/products',
        auth: 'operator',
        roles: [...PRODUCT_ROLES],
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        internal: true,
        summary:
          'Declare a product a tenant deposits through: one per deposit kind, approved by the platform (docs/deposits.md).',
        body: Type.Object(
          { tenant: Slug, kind: Kind, name: DisplayName(100), requireChannel: Type.Optional(Type.Boolean()) },
          {
            additionalProperties: false,
            examples: [{ tenant: 'acme-transit', kind: 'ticket', name: 'Monthly city pass', requireChannel: false }],
          },
        ),
        responses: {
          201: { description: 'The product, not yet approved.', schema: Product },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_tenant'),
          409: refusal('conflict', 'the tenant has a product of this kind.'),
        },
        handler: async (request, reply) =>
          reply.code(201).send(await deposits.createProduct(request.body, operatorActor(operatorOf(request)))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/products/{productId}/approve',
        auth: 'operator',
        roles: ['owner'],
        scope: 'platform',
        stability: 'unpromised',
        internal: true,
        summary: 'Approve a product, so its tenant may deposit through it (platform operators; docs/deposits.md).',
        params: Type.Object({ productId: ProductId }),
        responses: {
          200: { description: 'The product, approved.', schema: Product },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_product'),
        },
        handler: async (request) => deposits.approve(request.params.productId, operatorActor(operatorOf(request))),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/products/{productId}/require-channel',
        auth: 'operator',
        roles: [...PRODUCT_ROLES],
        scope: { tenantIn: 'body' },
        stability: 'unpromised',
        internal: true,
        summary: 'Whether the product deposits only to accounts with an active channel (docs/deposits.md).',
        params: Type.Object({ productId: ProductId }),
        body: Type.Object(
          { tenant: Slug, required: Type.Boolean() },
          { additionalProperties: false, examples: [{ tenant: 'acme-transit', required: true }] },
        ),
        responses: {
          200: { description: 'The product.', schema: Product },
          ...OPERATOR_ERRORS,
          404: refusal('unknown_product'),
        },
        handler: async (request) =>
          deposits.requireChannel(
            request.body.tenant,
            request.params.productId,
            request.body.required,
            operatorActor(operatorOf(request)),
          ),
      }),
      defineRoute({
        method: 'POST',
        path: '/api/demo/seed',
        auth: 'operator',
        roles: ['owner'],
        scope: 'platform',
        stability: 'unpromised',
        internal: true,
        summary: 'Seed the demonstration catalogue, and demo items for an account (docs/deposits.md).',
        body: Type.Object(
          { accountId: Type.Optional(AccountId) },
          { additionalProperties: false, examples: [{ accountId: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' }] },
        ),
        bodyOptional: true,
        responses: {
          200: {
            description: 'What the demonstration holds; the same on every call.',
            schema: Type.Object({
              fixtures: Type.Boolean(),
              tenant: Type.Object({ slug: Type.String(), name: Type.String() }),
              products: Type.Array(Product),
              accountId: Type.Optional(Type.String()),
              items: Type.Array(DepositAnswer),
            }),
          },
          ...OPERATOR_ERRORS,
        },
        handler: async (request) => demo.seed(request.body.accountId, operatorActor(operatorOf(request))),
      }),
    ],
  };
}
