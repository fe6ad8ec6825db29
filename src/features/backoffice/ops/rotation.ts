import { type Static, Type } from '@sinclair/typebox';
import type { Actor } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import type { ApprovalAction } from '../../../http/admin/approval-desk.ts';
import { Slug } from '../../../http/schemas/common.ts';
import type { IssuanceViews } from '../../../ports/issuance-views.ts';
import type { KernelViews, KeyRow } from '../../../ports/kernel-views.ts';
import { ACTIVE_KEY_TTL_MS, type KeyStore } from '../../../ports/key-store.ts';
import type { StoredSigningKey } from '../../../ports/signing-key-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';
import type { StatusService } from '../../status/status-service.ts';
import type { TenantService } from '../../tenants/tenant-service.ts';
import { TRANSACTION_TTL_MS } from '../../verification/hosted-verifier.ts';

export const ROTATE_ACTION = 'key.rotate';
/** Superseded keys looked at per run of the retirement job. */
const RETIRE_BATCH = 100;
export const RETIREMENT: { actor: Actor; everyMs: number } = {
  actor: { kind: 'system', what: 'key-retirement' },
  everyMs: 15 * 60 * 1000,
};

export const RotateParams = Type.Object(
  {
    tenant: Type.Union([Slug, Type.Literal(ROOT_SLUG)], {
      description: 'The tenant whose key rotates; root for the platform.',
    }),
    purpose: Type.Optional(
      Type.Union([Type.Literal('issuer'), Type.Literal('verifier')], {
        description:
          'The key that rotates: issuer (the default) signs credentials and status lists; verifier signs request objects (the platform’s).',
      }),
    ),
  },
  { additionalProperties: false },
);
type Params = Static<typeof RotateParams>;

export interface RotationDeps {
  keys: KeyStore;
  tenants: TenantService;
  status: StatusService;
  /** Superseded keys. */
  kernel: KernelViews;
  /** What the keys signed. */
  issuance: IssuanceViews;
  uow: UnitOfWork;
  clock: Clock;
}

/**
 * `key.rotate` (docs/operations.md, "Key rotation"), four eyes: on approval, in the approval's
 * transaction, the tenant's issuer (or verifier) key is superseded by a fresh one, made where the
 * deployment keeps keys (docs/keys.md), which signs from then on; the old one stays in the DID
 * document, so every credential it signed keeps verifying; an issuer key's rotation signs every
 * status list of the tenant again; `key.rotated` is audited and emitted.
 */
export function rotateAction(deps: RotationDeps): ApprovalAction<Params, StoredSigningKey> {
  return {
    name: ROTATE_ACTION,
    summary:
      "Rotate a tenant's issuer (or verifier) key: a new key signs, the old one stays published until nothing it signed can be presented.",
    params: RotateParams,
    roles: ['owner', 'ops'],
    tenantOf: () => null,
    async check(p) {
      await deps.tenants.existing(p.tenant);
    },
    // The key is generated and certified before the approval's transaction opens.
    prepare: (p) => deps.keys.prepareKey(p.tenant, p.purpose ?? 'issuer'),
    // A key made for an approval that did not commit is destroyed, not left in the token.
    discard: (key) => deps.keys.discard(key),
    async execute({ audit }, p, context) {
      const purpose = p.purpose ?? 'issuer';
      const { previous, current } = await deps.keys.rotate(p.tenant, purpose, context.prepared);
      const listsResigned = purpose === 'issuer' ? await deps.status.resignAll(p.tenant) : 0;
      const did = deps.tenants.didOf(p.tenant);
      await audit.append(
        {
          actor: context.actor,
          action: 'key.rotated',
          tenant: p.tenant,
          target: current,
          detail: { purpose, previousKid: previous, listsResigned, approvalId: context.approvalId },
        },
        [
          {
            type: 'key.rotated',
            tenant: p.tenant,
            data: { did, kid: current, previousKid: previous, approvalId: context.approvalId },
          },
        ],
      );
      return { tenant: p.tenant, purpose, kid: current, previousKid: previous, listsResigned };
    },
  };
}

/**
 * The retirement job: a superseded issuer key leaves the DID document once no credential it
 * signed can still be presented, that is once every credential the tenant issued while it signed
 * is revoked or past its expiry (docs/operations.md, "Expiry"); one without expiry keeps it
 * published until it is revoked. A superseded verifier key signed request objects only: it leaves
 * once every transaction opened while it signed has expired. Each retirement is audited
 * (`key.retired`); a retired key's token objects are deleted (docs/keys.md).
 */
export async function retireSuperseded(deps: RotationDeps): Promise<number> {
  const now = deps.clock.now();
  const issuers = (await deps.kernel.supersededKeys(RETIRE_BATCH, 'issuer')).filter((k) => signedUntil(k) <= now);
  const outstanding = await deps.issuance.outstandingIn(
    issuers.map((k) => ({ tenant: k.tenant, from: k.createdAt, to: signedUntil(k) })),
    now,
  );
  const verifiers = (await deps.kernel.supersededKeys(RETIRE_BATCH, 'verifier')).filter(
    (k) => signedUntil(k) + TRANSACTION_TTL_MS <= now,
  );
  let retired = 0;
  for (const key of [...issuers.filter((_, i) => (outstanding[i] ?? 0) === 0), ...verifiers]) {
    await deps.uow.run(async ({ audit }) => {
      if (!(await deps.keys.retire(key.tenant, key.kid))) return;
      retired++;
      await audit.append({
        actor: RETIREMENT.actor,
        action: 'key.retired',
        tenant: key.tenant,
        target: key.kid,
        detail: { purpose: key.purpose },
      });
    });
  }
  return retired;
}

/** Until when a superseded key may have signed: a process may sign with it for a while after the rotation (the key store's cache). */
export const signedUntil = (key: KeyRow): number => (key.supersededAt ?? 0) + ACTIVE_KEY_TTL_MS;
