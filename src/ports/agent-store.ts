/** An automation agent's latest heartbeat (docs/operations.md, "Automation agents"). */
export interface AgentBeat {
  tenant: string;
  agent: string;
  lastSeenAt: number;
  beats: number;
  reportedBy: string;
}

/** @tenantOwned */
export interface AgentStore {
  /**
   * Records a heartbeat: the agent's row is created or moved on in one upsert; false, writing
   * nothing, when the tenant already has `maxAgents` other agents.
   */
  beat(tenant: string, agent: string, at: number, by: string, maxAgents: number): Promise<boolean>;
  /** The tenant's agents, most recently seen first. */
  agents(tenant: string, limit: number): Promise<AgentBeat[]>;
}
