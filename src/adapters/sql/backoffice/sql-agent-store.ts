import { sql } from 'kysely';
import type { AgentBeat, AgentStore } from '../../../ports/agent-store.ts';
import type { Db } from '../connect.ts';
import { rowCodec } from '../row-codec.ts';
import type { AgentHeartbeatsTable } from '../schema.ts';
import { holdTenant } from '../tenants/tenants-statements.ts';

const beats = rowCodec<AgentBeat, AgentHeartbeatsTable>()('tenant agent lastSeenAt beats reportedBy', {});

export class SqlAgentStore implements AgentStore {
  constructor(private readonly db: Db) {}

  async beat(tenant: string, agent: string, at: number, by: string, maxAgents: number): Promise<boolean> {
    // Counted under the tenant's row: two new agents at once each count the other's commit.
    await holdTenant(this.db, tenant);
    const known = await this.db
      .selectFrom('agent_heartbeats')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        sql<number>`sum(case when agent = ${agent} then 1 else 0 end)`.as('mine'),
      ])
      .where('tenant', '=', tenant)
      .executeTakeFirstOrThrow();
    if (Number(known.mine ?? 0) === 0 && Number(known.n) >= maxAgents) return false;
    await this.db
      .insertInto('agent_heartbeats')
      .values({ tenant, agent, last_seen_at: at, beats: 1, reported_by: by })
      .onConflict((oc) =>
        oc.columns(['tenant', 'agent']).doUpdateSet((eb) => ({
          last_seen_at: at,
          beats: eb('agent_heartbeats.beats', '+', 1),
          reported_by: by,
        })),
      )
      .execute();
    return true;
  }

  async agents(tenant: string, limit: number): Promise<AgentBeat[]> {
    const rows = await this.db
      .selectFrom('agent_heartbeats')
      .selectAll()
      .where('tenant', '=', tenant)
      .orderBy('last_seen_at', 'desc')
      .orderBy('agent')
      .limit(limit)
      .execute();
    return rows.map(beats.record);
  }
}
