import type { Actor } from '../../../core/actor.ts';
import { actorLabel } from '../../../core/actor.ts';
import type { Clock } from '../../../core/clock.ts';
import { ServiceError } from '../../../core/errors.ts';
import type { AgentStore } from '../../../ports/agent-store.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.ts';

/** Agents one tenant may have report, at most: what an integration token can make us keep is bounded. */
export const MAX_AGENTS = 100;

export interface AgentReport {
  tenant: string;
  agent: string;
  kind: 'heartbeat' | 'action';
  action?: string | undefined;
  ref?: string | undefined;
  summary?: string | undefined;
}

/**
 * Automation agents (docs/operations.md, "Automation agents"): a heartbeat moves the agent's row
 * on; an action is audited (`agent.acted`, with its summary) and evented, so the activity feed and
 * the tenant's webhooks show it.
 */
export class AgentActivity {
  constructor(
    private readonly deps: {
      store: AgentStore;
      uow: UnitOfWork;
      /** Refuses a tenant that does not exist (`unknown_tenant`). */
      checkTenant: (slug: string) => Promise<unknown>;
      clock: Clock;
    },
  ) {}

  async report(r: AgentReport, actor: Actor): Promise<{ ok: true; auditSeq: number | null; agent: string; at: string }> {
    await this.deps.checkTenant(r.tenant);
    const now = this.deps.clock.now();
    const at = new Date(now).toISOString();
    if (r.kind === 'heartbeat') {
      const recorded = await this.deps.uow.run(() => this.deps.store.beat(r.tenant, r.agent, now, actorLabel(actor), MAX_AGENTS));
      if (!recorded) {
        throw new ServiceError(
          'conflict',
          `Tenant ${r.tenant} already has ${MAX_AGENTS} agents reporting; no new one is recorded.`,
        );
      }
      return { ok: true, auditSeq: null, agent: r.agent, at };
    }
    if (r.action === undefined) throw new ServiceError('invalid_request', 'An action report names its action.');
    const { action } = r;
    const auditSeq = await this.deps.uow.run(async ({ audit }) => {
      const detail = { agent: r.agent, action, ...(r.summary === undefined ? {} : { summary: r.summary }) };
      return audit.append({ actor, action: 'agent.acted', tenant: r.tenant, target: r.ref ?? r.agent, detail }, [
        { type: 'agent.acted', tenant: r.tenant, data: { agent: r.agent, action, ref: r.ref ?? null } },
      ]);
    });
    return { ok: true, auditSeq, agent: r.agent, at };
  }

  agents(tenant: string) {
    return this.deps.store.agents(tenant, MAX_AGENTS);
  }
}
