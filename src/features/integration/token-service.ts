import { hashToken, newToken } from '../../adapters/crypto/secrets.ts';
import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import { INTEGRATION_SCOPES, type IntegrationScope, RATE_CLASSES, type RateClass } from '../../core/integration-scopes.ts';
import { pageOf } from '../../core/page.ts';
import { INTEGRATION_TOKEN_PREFIX } from '../../http/auth/operator-bearer.ts';
import type {
  IntegrationTokenRecord,
  IntegrationTokenStore,
  ProvisioningRecord,
  ProvisioningState,
} from '../../ports/integration-token-store.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';

/** A provisioning request not decided within this time expires. */
export const PROVISIONING_TTL_MS = 7 * 86_400_000;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface Scope {
  tokens: IntegrationTokenStore;
}

export interface OpenRequest {
  tenant: string;
  label: string;
  scopes: IntegrationScope[];
  rateClass: RateClass;
  reason: string;
}

const tokenView = (t: IntegrationTokenRecord) => ({
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
  id: string,
  fields: Pick<IntegrationTokenRecord, 'tenant' | 'label' | 'scopes' | 'rateClass' | 'requestId' | 'createdBy' | 'partnerId'>,
  now: number,
): { record: IntegrationTokenRecord; secret: string } {
  const secret = newToken(INTEGRATION_TOKEN_PREFIX);
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

const unknownRequest = () => new ServiceError('unknown_provisioning_request', 'No provisioning request you may see has this id.');
const unknownToken = () => new ServiceError('unknown_token', 'No integration token you may see has this id.');

/**
 * The provisioning ceremony and integration tokens (docs/integration.md): an operator asks for a
 * tenant-scoped token, another operator (an owner) approves it, and the token is shown once;
 * only its hash is kept. Tokens are listed, revoked and rotated here.
 */
export class IntegrationTokenService {
  constructor(
    private readonly store: IntegrationTokenStore,
    private readonly uow: UnitOfWork<Scope>,
    private readonly clock: Clock,
    private readonly ids: Ids,
    private readonly tenantExists: (slug: string) => Promise<boolean>,
    /** The labels of every actor that may be the same person as this one (OperatorService.samePersonAs). */
    private readonly samePersonAs: (label: string) => Promise<ReadonlySet<string>>,
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

  private requestView(r: ProvisioningRecord) {
    const state: ProvisioningState = r.state === 'pending' && r.expiresAt <= this.clock.now() ? 'expired' : r.state;
    return {
      id: r.id,
      tenant: r.tenant,
      label: r.label,
      scopes: r.scopes,
      rateClass: r.rateClass,
      reason: r.reason,
      state,
      requestedBy: r.requestedBy,
      createdAt: new Date(r.createdAt).toISOString(),
      expiresAt: new Date(r.expiresAt).toISOString(),
      decidedBy: r.decidedBy,
      decidedAt: iso(r.decidedAt),
      note: r.note,
      tokenId: r.tokenId,
    };
  }

  async open(actor: Actor, input: OpenRequest) {
    if (!(await this.tenantExists(input.tenant))) {
      throw new ServiceError('unknown_tenant', `No tenant has the slug "${input.tenant}".`);
    }
    const now = this.clock.now();
    const record: ProvisioningRecord = {
      id: this.ids.mint('provisioning'),
      tenant: input.tenant,
      label: input.label,
      scopes: [...new Set(input.scopes)].sort(),
      rateClass: input.rateClass,
      reason: input.reason,
      state: 'pending',
      requestedBy: actorLabel(actor),
      createdAt: now,
      expiresAt: now + PROVISIONING_TTL_MS,
      decidedBy: null,
      decidedAt: null,
      note: null,
      tokenId: null,
    };
    const auditSeq = await this.uow.run(async ({ tokens, audit }) => {
      await tokens.createRequest(record);
      return audit.append({
        actor,
        action: 'provisioning.requested',
        tenant: record.tenant,
        target: record.id,
        detail: { scopes: record.scopes, rateClass: record.rateClass },
      });
    });
    return { ok: true as const, auditSeq, request: this.requestView(record) };
  }

  async requests(within: string | null, tenant: string | undefined, limit: number, cursor: string | undefined) {
    const rows = await this.store.requests(within, {
      limit: limit + 1,
      ...(tenant === undefined ? {} : { tenant }),
      ...(cursor === undefined ? {} : { before: Number(cursor) }),
    });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      requests: page.map((r) => this.requestView(r)),
      nextCursor: rows.length > limit && last ? String(last.createdAt) : null,
    };
  }

  async request(within: string | null, id: string) {
    const found = await this.store.request(id, within);
    if (!found) throw unknownRequest();
    return this.requestView(found);
  }

  async reject(actor: Actor, within: string | null, id: string, note: string | null) {
    const found = await this.store.request(id, within);
    if (!found) throw unknownRequest();
    const auditSeq = await this.uow.run(async ({ tokens, audit }) => {
      const decided = await tokens.decide(
        id,
        within,
        { state: 'rejected', decidedBy: actorLabel(actor), note, tokenId: null },
        this.clock.now(),
      );
      if (!decided) throw this.notPending(found);
      return audit.append({ actor, action: 'provisioning.rejected', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, request: await this.request(within, id) };
  }

  private notPending(r: ProvisioningRecord): ServiceError {
    return new ServiceError(
      'provisioning_state',
      `The request is ${this.requestView(r).state}; only a pending request is decided.`,
    );
  }

  /**
   * Approves a pending request and mints its token, in one transaction: four eyes, so the operator
   * who asked cannot approve. The token is in the answer only; the database keeps its hash.
   */
  async approve(actor: Actor, requestId: string) {
    const found = await this.store.request(requestId, null);
    if (!found) throw unknownRequest();
    const approver = actorLabel(actor);
    // Four eyes means two people (docs/security.md): neither the requester nor one linked to it.
    if ((await this.samePersonAs(approver)).has(found.requestedBy)) {
      throw new ServiceError(
        'same_operator',
        'The operator who asked for this token, or one linked to it (created or invited by it, its creator, or sharing its enterprise identity), cannot approve it; another owner must.',
      );
    }
    const now = this.clock.now();
    const { record, secret } = mintToken(
      this.ids.mint('integrationToken'),
      {
        tenant: found.tenant,
        label: found.label,
        scopes: found.scopes,
        rateClass: found.rateClass,
        requestId,
        createdBy: approver,
        partnerId: null,
      },
      now,
    );
    const auditSeq = await this.uow.run(async ({ tokens, audit }) => {
      const decided = await tokens.decide(
        requestId,
        null,
        { state: 'approved', decidedBy: approver, note: null, tokenId: record.id },
        now,
      );
      if (!decided) throw this.notPending(found);
      await tokens.createToken(record);
      return audit.append({
        actor,
        action: 'integration_token.minted',
        tenant: record.tenant,
        target: record.id,
        detail: { requestId, requestedBy: found.requestedBy, scopes: record.scopes, rateClass: record.rateClass },
      });
    });
    return { ok: true as const, auditSeq, token: { ...tokenView(record), secret } };
  }

  async tokens(within: string | null, tenant: string | undefined, limit: number, cursor: string | undefined) {
    const rows = await this.store.tokens(within, {
      limit: limit + 1,
      ...(tenant === undefined ? {} : { tenant }),
      ...(cursor === undefined ? {} : { before: Number(cursor) }),
    });
    const page = pageOf(rows, limit, (t) => String(t.createdAt));
    return { tokens: page.rows.map(tokenView), nextCursor: page.nextCursor };
  }

  async revoke(actor: Actor, within: string | null, id: string) {
    const found = await this.store.token(id, within);
    if (!found) throw unknownToken();
    const auditSeq = await this.uow.run(async ({ tokens, audit }) => {
      if (!(await tokens.revoke(id, within, actorLabel(actor), this.clock.now()))) {
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
    const secret = newToken(INTEGRATION_TOKEN_PREFIX);
    const auditSeq = await this.uow.run(async ({ tokens, audit }) => {
      if (!(await tokens.rotate(id, within, hashToken(secret), this.clock.now()))) {
        throw new ServiceError('token_revoked', 'A revoked token cannot be rotated.');
      }
      return audit.append({ actor, action: 'integration_token.rotated', tenant: found.tenant, target: id });
    });
    return { ok: true as const, auditSeq, token: { ...tokenView((await this.store.token(id, within)) ?? found), secret } };
  }
}
