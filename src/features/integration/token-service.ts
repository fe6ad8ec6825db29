import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import { INTEGRATION_SCOPES, RATE_CLASSES } from '../../core/integration-scopes.ts';
import type { Random } from '../../core/random.ts';
import { hashToken, newToken } from '../../core/secrets.ts';
import { cursorOf, type ListParams, page, windowOf } from '../../http/admin/kit.ts';
import { INTEGRATION_TOKEN_PREFIX } from '../../http/auth/operator-bearer.ts';
import type { IntegrationTokenRecord, IntegrationTokenStore } from '../../ports/integration-token-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const tokenView = (t: IntegrationTokenRecord) => ({
  id: t.id,
  tenant: t.tenant,
  label: t.label,
  scopes: t.scopes,
  rateClass: t.rateClass,
  state: t.state,
  requestId: t.requestId,
  createdBy: t.createdBy,
  createdAt: new Date(t.createdAt).toISOString(),
  rotatedAt: iso(t.rotatedAt),
  revokedAt: iso(t.revokedAt),
  revokedBy: t.revokedBy,
  partnerId: t.partnerId,
});

/**
 * A new active token and its secret: the secret is answered once, and only its hash is kept. Both
 * the provisioning ceremony and a partner's portal mint through here.
 */
export function mintToken(
  random: Random,
  id: string,
  fields: Pick<IntegrationTokenRecord, 'tenant' | 'label' | 'scopes' | 'rateClass' | 'requestId' | 'createdBy' | 'partnerId'>,
  now: number,
): { record: IntegrationTokenRecord; secret: string } {
  const secret = newToken(random, INTEGRATION_TOKEN_PREFIX);
  const record: IntegrationTokenRecord = {
    ...fields,
    id,
    tokenHash: hashToken(secret),
    state: 'active',
    createdAt: now,
    rotatedAt: null,
    revokedAt: null,
    revokedBy: null,
  };
  return { record, secret };
}

const unknownToken = () => new ServiceError('unknown_token', 'No integration token you may see has this id.');

/**
 * Integration tokens (docs/integration.md): listed, revoked and rotated here; minted by the
 * provisioning ceremony (provisioning.ts) or by a partner in its portal, both through `mintToken`.
 * Only a token's hash is kept.
 */
export class IntegrationTokenService {
  constructor(
    private readonly store: IntegrationTokenStore,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  keyOptions() {
    return {
      scopes: Object.entries(INTEGRATION_SCOPES).map(([name, description]) => ({ name, description })),
      rateClasses: Object.entries(RATE_CLASSES).map(([name, c]) => ({
        name,
        quota: c.quota,
        windowSeconds: c.windowSeconds,
        description: c.description,
      })),
    };
  }

  /** Newest first, on the back office's list convention (docs/backoffice.md, "Conventions"). */
  async tokens(p: ListParams) {
    const after = cursorOf(p.after, ['number', 'string']);
    const rows = await this.store.tokens(p.tenant, {
      limit: p.limit + 1,
      ...windowOf(p),
      ...(after === undefined ? {} : { after }),
    });
    const shown = page(rows, p.limit, (t) => [t.createdAt, t.id], tokenView);
    return { tokens: shown.rows, nextCursor: shown.nextCursor };
  }

  async revoke(actor: Actor, within: string | null, id: string) {
    const found = await this.store.token(id, within);
    if (!found) throw unknownToken();
    const auditSeq = await this.uow.run(async ({ audit }) => {
      if (!(await this.store.revoke(id, within, actorLabel(actor), this.clock.now()))) {
        throw new ServiceError('token_revoked', 'The token is already revoked.');
      }
      return audit.append({ actor, action: 'integration_token.revoked', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, token: tokenView((await this.store.token(id, within)) ?? found) };
  }

  /** A new secret for the same token (id, scopes, rate class, budget); the old one stops working at once. */
  async rotate(actor: Actor, within: string | null, id: string) {
    const found = await this.store.token(id, within);
    if (!found) throw unknownToken();
    const secret = newToken(this.random, INTEGRATION_TOKEN_PREFIX);
    const auditSeq = await this.uow.run(async ({ audit }) => {
      if (!(await this.store.rotate(id, within, hashToken(secret), this.clock.now()))) {
        throw new ServiceError('token_revoked', 'A revoked token cannot be rotated.');
      }
      return audit.append({ actor, action: 'integration_token.rotated', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, token: { ...tokenView((await this.store.token(id, within)) ?? found), secret } };
  }
}
