import { type Actor, actorLabel } from '../../core/actor.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError } from '../../core/errors.ts';
import type { PageWindow } from '../../core/page.ts';
import type { TrustedIssuer, TrustRegistry, TrustState } from '../../ports/trust-registry.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.ts';

/** What the trust registry's changes answer: the entry as it is now, and the audit entry. */
export interface TrustChange {
  ok: true;
  auditSeq: number;
  issuer: TrustedIssuer;
}

export interface TrustDeps {
  registry: TrustRegistry;
  uow: UnitOfWork;
  /** Resolves a did:web DID to its document (did-web-resolver.ts). */
  resolve: (did: string) => Promise<Record<string, unknown>>;
  /** The DID of a tenant of this deployment, for the refusal of one. */
  platformDid: string;
  clock: Clock;
}

/**
 * The trust registry (docs/operations.md, "Trust registry"): the issuers the hosted verifier
 * accepts beyond this deployment's own tenants, which are trusted by construction. Each change is
 * one conditional write with its audit entry; the verifier reads the entry on every presentation,
 * so a suspension holds on the next request on every process.
 */
export class TrustService {
  constructor(private readonly deps: TrustDeps) {}

  async add(did: string, label: string, actor: Actor): Promise<TrustChange> {
    if (did === this.deps.platformDid || did.startsWith(`${this.deps.platformDid}:t:`)) {
      throw new ServiceError('issuer_is_tenant', `${did} is an issuer of this deployment, trusted by construction.`);
    }
    if (await this.deps.registry.get(did)) throw new ServiceError('issuer_known', `${did} is already in the trust registry.`);
    // Resolved before the transaction opens: no transaction waits on another server.
    const document = await this.deps.resolve(did);
    const now = this.deps.clock.now();
    const by = actorLabel(actor);
    const entry: TrustedIssuer = {
      did,
      label,
      document,
      state: 'active',
      addedBy: by,
      addedAt: now,
      changedBy: by,
      changedAt: now,
      reason: null,
    };
    return this.deps.uow.run(async ({ audit }) => {
      if (!(await this.deps.registry.add(entry)))
        throw new ServiceError('issuer_known', `${did} is already in the trust registry.`);
      const auditSeq = await audit.append({ actor, action: 'trust.added', tenant: null, target: did, detail: { label } });
      return { ok: true as const, auditSeq, issuer: entry };
    });
  }

  suspend(did: string, reason: string, actor: Actor): Promise<TrustChange> {
    return this.move(did, ['active'], 'suspended', reason, actor, 'trust.suspended');
  }

  remove(did: string, reason: string, actor: Actor): Promise<TrustChange> {
    return this.move(did, ['active', 'suspended'], 'removed', reason, actor, 'trust.removed');
  }

  /** Trusted again, with its DID document resolved again (its keys may have changed meanwhile). */
  async restore(did: string, reason: string | null, actor: Actor): Promise<TrustChange> {
    const current = await this.entry(did);
    if (current.state === 'active') throw new ServiceError('issuer_state', `${did} is already trusted.`);
    const document = await this.deps.resolve(did);
    return this.move(did, ['suspended', 'removed'], 'active', reason, actor, 'trust.restored', document);
  }

  async entry(did: string): Promise<TrustedIssuer> {
    const found = await this.deps.registry.get(did);
    if (!found) throw new ServiceError('unknown_issuer', `${did} is not in the trust registry.`);
    return found;
  }

  /** The entry the verifier may use now: undefined unless it is active. */
  async trusted(did: string): Promise<TrustedIssuer | undefined> {
    const found = await this.deps.registry.get(did);
    return found?.state === 'active' ? found : undefined;
  }

  list(state: TrustState | undefined, page: PageWindow<readonly [string]>): Promise<TrustedIssuer[]> {
    return this.deps.registry.list(state, page);
  }

  private async move(
    did: string,
    from: readonly TrustState[],
    to: TrustState,
    reason: string | null,
    actor: Actor,
    action: string,
    document?: Record<string, unknown>,
  ): Promise<TrustChange> {
    const current = await this.entry(did);
    const now = this.deps.clock.now();
    return this.deps.uow.run(async ({ audit }) => {
      const moved = await this.deps.registry.move(did, from, {
        to,
        by: actorLabel(actor),
        at: now,
        reason,
        ...(document ? { document } : {}),
      });
      if (!moved) throw new ServiceError('issuer_state', `${did} is ${current.state}: it cannot become ${to}.`);
      const auditSeq = await audit.append({
        actor,
        action,
        tenant: null,
        target: did,
        detail: { from: current.state, to, ...(reason === null ? {} : { reason }) },
      });
      const issuer = (await this.deps.registry.get(did)) as TrustedIssuer;
      return { ok: true as const, auditSeq, issuer };
    });
  }
}
