import { type DatabaseLocation, storageOf } from '../../../config/config.ts';
import type { Clock } from '../../../core/clock.ts';
import type { KernelViews } from '../../../ports/kernel-views.ts';
import type { ShippedBuild } from '../../../ports/shipped-build.ts';
import type { CloudView } from './schemas.ts';

/** A process that ran a job this recently counts as running. */
const SEEN_WITHIN_MS = 10 * 60 * 1000;

export interface DeploymentDeps {
  /** Job leases: who ran a job, when. */
  kernel: KernelViews;
  database: DatabaseLocation;
  shipped: ShippedBuild;
  processName: string;
  mountedGroups: () => readonly string[];
  metrics: boolean;
  clock: Clock;
}

/** The node of a lease holder `node:pid:nonce`. */
const nodeOf = (holder: string) => holder.split(':').slice(0, -2).join(':') || holder;

/** How this deployment runs (docs/operations.md, "Cloud"): read from the build record, the leases and the configuration. */
export class Deployment {
  private readonly version: string;

  constructor(private readonly deps: DeploymentDeps) {
    this.version = deps.shipped.version() ?? 'unknown';
  }

  async describe(): Promise<CloudView> {
    const now = this.deps.clock.now();
    const seen = new Map<string, number>();
    for (const lease of await this.deps.kernel.jobLeases()) {
      const at = Math.max(lease.startedAt, lease.finishedAt ?? 0);
      if (now - at <= SEEN_WITHIN_MS) seen.set(lease.holder, Math.max(seen.get(lease.holder) ?? 0, at));
    }
    // The process answering is running, jobs or none: seen now, under the name its leases carry.
    seen.set(this.deps.processName, now);
    const build = this.deps.shipped.recorded();
    const storage = storageOf(this.deps.database);
    return {
      engine: storage.engine,
      storage: storage.where,
      version: this.version,
      commit: build?.commit ?? 'unknown',
      sourceDigest: build?.sourceDigest ?? 'unrecorded',
      nodeVersion: process.version,
      processes: [...seen]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([holder, at]) => ({ holder, node: nodeOf(holder), lastSeenAt: new Date(at).toISOString() })),
      nodes: [...new Set([...seen.keys()].map(nodeOf))].sort(),
      thisProcess: this.deps.processName,
      thisNode: nodeOf(this.deps.processName),
      mountedGroups: [...this.deps.mountedGroups()],
      metrics: this.deps.metrics,
    };
  }
}
