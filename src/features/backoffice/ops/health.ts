import type { DatabaseLocation } from '../../../config/config.ts';
import type { Clock } from '../../../core/clock.ts';
import { ROOT_SLUG } from '../../../core/slug.ts';
import { isoOrNull } from '../../../http/admin/kit.ts';
import type { ClusterState } from '../../../ports/cluster-state.ts';
import type { DiskSpace } from '../../../ports/disk-space.ts';
import type { KernelViews, KeyRow } from '../../../ports/kernel-views.ts';
import type { KeyBackend, PrivateKeyRef } from '../../../ports/key-backend.ts';
import type { RootReplacement } from '../../../ports/key-certifier.ts';
import type { WebhooksViews } from '../../../ports/webhooks-views.ts';
import type { HealthView, State } from './health-schemas.ts';
import type { CommsHealthView } from './schemas.ts';

/** Below these the disk is degraded, then down. */
const DISK_LOW = { share: 0.1, bytes: 1024 ** 3 };
const DISK_FULL = { share: 0.01, bytes: 100 * 1024 ** 2 };
/** An event unrouted this long means the router is behind; a delivery pending this long, an endpoint is. */
const UNROUTED_LATE_S = 60;
const PENDING_LATE_S = 3600;
/** A database answering slower than this is degraded. */
const SLOW_DB_MS = 250;
/** Mail and webhook failure rates above these degrade, then down, the channel (with enough to judge by). */
const FAILURE_DEGRADED = 0.1;
const FAILURE_DOWN = 0.5;
const FAILURE_MIN_SAMPLE = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A token signing slower than this is degraded. */
const SLOW_SIGN_MS = 100;
/** Active keys whose objects the health looks for, at most (each is one search in the token). */
const KEYS_CHECKED = 5000;
/** What the probe signature covers: no JWS can have this signing input, so the signature is good for nothing else. */
const PROBE = Buffer.from('openrail health probe: not a JWS', 'ascii');

export interface HealthDeps {
  /** Job leases, the outbox and mail outcomes. */
  kernel: KernelViews;
  webhooks: WebhooksViews;
  ping: () => Promise<void>;
  /** The PostgreSQL cluster as this node sees it (undefined on SQLite). */
  cluster: () => Promise<ClusterState | undefined>;
  database: DatabaseLocation;
  dataDir: string;
  /** Reads the data folder's disk and the SQLite log's size. */
  disk: DiskSpace;
  mailTransport: 'smtp' | 'outbox';
  /** Where the keys are: asked whether it can sign and whether each active key's object is there. */
  keyBackend: KeyBackend;
  /** The platform roots; null when the operator's own chain certifies the keys. */
  roots: Pick<RootReplacement, 'describe' | 'keyInForce'> | null;
  clock: Clock;
}

const worst = (states: readonly State[]): State =>
  states.includes('down') ? 'down' : states.includes('degraded') ? 'degraded' : 'ok';
const ageS = (at: number | null, now: number) => (at === null ? null : Math.max(0, Math.floor((now - at) / 1000)));
const rate = (bad: number, total: number) => (total === 0 ? null : Math.round((bad / total) * 1000) / 1000);
const rateState = (bad: number, total: number): State =>
  total < FAILURE_MIN_SAMPLE || bad / total <= FAILURE_DEGRADED ? 'ok' : bad / total > FAILURE_DOWN ? 'down' : 'degraded';

/**
 * The deployment's health (docs/operations.md, "Health"): each component with its state and the
 * numbers behind it, each read fresh. A component that cannot be read is `down` with the reason,
 * never left out.
 */
export class OpsHealth {
  constructor(private readonly deps: HealthDeps) {}

  async health(): Promise<HealthView> {
    const now = this.deps.clock.now();
    const [database, disk, jobs, webhooks, mail, keys] = await Promise.all([
      this.database(),
      this.disk(),
      this.jobs(now),
      this.webhooks(now),
      this.mail(now),
      this.keys(),
    ]);
    const components = { database, disk, jobs, webhooks, mail, keys };
    return { state: worst(Object.values(components).map((c) => c.state)), checkedAt: new Date(now).toISOString(), components };
  }

  async comms(windowHours: number): Promise<CommsHealthView> {
    const now = this.deps.clock.now();
    const since = now - windowHours * 60 * 60 * 1000;
    const [mail, hooks] = await Promise.all([this.deps.kernel.mailRates(since), this.deps.webhooks.rates(since)]);
    return {
      windowHours,
      since: new Date(since).toISOString(),
      mail: {
        state: rateState(mail.refused, mail.sent + mail.refused),
        transport: this.deps.mailTransport,
        sent: mail.sent,
        refused: mail.refused,
        failureRate: rate(mail.refused, mail.sent + mail.refused),
        failures: mail.failures,
        lastRefusedAt: isoOrNull(mail.lastRefusedAt),
      },
      webhooks: {
        state:
          hooks.endpointsDisabled > 0
            ? worst(['degraded', rateState(hooks.failed, hooks.attempts)])
            : rateState(hooks.failed, hooks.attempts),
        attempts: hooks.attempts,
        failed: hooks.failed,
        failureRate: rate(hooks.failed, hooks.attempts),
        deadLetters: hooks.dead,
        endpointsFailing: hooks.endpointsFailing,
        endpointsDisabled: hooks.endpointsDisabled,
      },
    };
  }

  /**
   * Where the keys are (docs/keys.md): for a token, whether this process is logged in, a probe
   * signature's time, and whether every key that signs now has its object in the token. A key
   * missing is `down`: its tenant cannot issue.
   */
  private async keys(): Promise<HealthView['components']['keys']> {
    const [component, rootKeyPresent] = await Promise.all([this.signingKeys(), this.deps.roots?.keyInForce() ?? null]);
    if (rootKeyPresent !== false) return { ...component, rootKeyPresent };
    const note =
      'the platform root in force has no key where it is kept: no key can be certified; replace the root (docs/keys.md)';
    return { ...component, state: 'down', note, rootKeyPresent };
  }

  private async signingKeys(): Promise<Omit<HealthView['components']['keys'], 'rootKeyPresent'>> {
    const backend = this.deps.keyBackend;
    const [health, active] = await Promise.all([backend.health(), this.deps.kernel.activeKeys(KEYS_CHECKED)]);
    const inToken = active.filter((k) => k.keyObject !== null);
    const roots = (this.deps.roots?.describe() ?? []).map((r) => ({
      ...r,
      activeFrom: new Date(r.activeFrom).toISOString(),
      notAfter: new Date(r.notAfter).toISOString(),
    }));
    const base = {
      backend: health.kind,
      token: health.token ?? null,
      loggedIn: health.loggedIn,
      activeKeys: active.length,
      roots,
    };
    if (health.kind === 'sealed') {
      const missing = inToken.slice(0, 20).map((k) => ({ tenant: k.tenant, kid: k.kid, label: k.keyObject?.label ?? null }));
      return {
        state: missing.length > 0 ? 'down' : 'ok',
        note: missing.length > 0 ? `${inToken.length} keys that sign now are in a token, and OPENRAIL_KEYS is sealed` : null,
        ...base,
        signLatencyMs: null,
        missing,
      };
    }
    if (!health.loggedIn) {
      return {
        state: 'down',
        note: `the token cannot sign (${health.problem ?? 'unavailable'})`,
        ...base,
        signLatencyMs: null,
        missing: [],
      };
    }
    const refOf = (k: KeyRow) => (k.keyObject ? { backend: 'pkcs11' as const, ...k.keyObject } : undefined);
    const present = await Promise.all(
      inToken.map((k) =>
        backend.inspect({ tenant: k.tenant, purpose: k.purpose }, k.kid, refOf(k) as PrivateKeyRef).then(
          (s) => s.present,
          () => null,
        ),
      ),
    );
    const missing = inToken.filter((_, i) => present[i] === false);
    const probe =
      inToken.find((k, i) => k.tenant === ROOT_SLUG && k.purpose === 'issuer' && present[i]) ??
      inToken.find((_, i) => present[i]);
    let signLatencyMs: number | null = null;
    if (probe) {
      const started = performance.now();
      try {
        await backend.sign({ tenant: probe.tenant, purpose: probe.purpose }, probe.kid, refOf(probe) as PrivateKeyRef, PROBE);
        signLatencyMs = Math.round((performance.now() - started) * 100) / 100;
      } catch {
        signLatencyMs = null;
      }
    }
    const slow = signLatencyMs !== null && signLatencyMs > SLOW_SIGN_MS;
    return {
      state: missing.length > 0 || (probe && signLatencyMs === null) ? 'down' : slow ? 'degraded' : 'ok',
      note:
        missing.length > 0
          ? `${missing.length} keys that sign now are not in the token`
          : probe && signLatencyMs === null
            ? 'the probe signature failed'
            : slow
              ? 'the token is slow to sign'
              : null,
      ...base,
      signLatencyMs,
      missing: missing.slice(0, 20).map((k) => ({ tenant: k.tenant, kid: k.kid, label: k.keyObject?.label ?? null })),
    };
  }

  private async database(): Promise<HealthView['components']['database']> {
    const engine = this.deps.database.kind;
    const started = performance.now();
    const cluster = await this.deps.cluster().catch(() => undefined);
    try {
      await this.deps.ping();
    } catch (err) {
      return {
        state: 'down',
        // The driver's code only: its message may name the host, the user or the database.
        note: cluster?.role === 'standby' ? 'a standby: this node cannot write' : `unreachable (${failureCode(err)})`,
        engine,
        latencyMs: null,
        cluster: cluster ?? null,
      };
    }
    const latencyMs = Math.round((performance.now() - started) * 100) / 100;
    // Commits that should wait for a standby and have none to wait for are on one node only.
    const alone = cluster !== undefined && cluster.synchronousStandbyNames !== '' && !cluster.synchronous;
    return {
      state: latencyMs > SLOW_DB_MS || alone ? 'degraded' : 'ok',
      note: alone ? 'no synchronous standby acknowledges commits' : latencyMs > SLOW_DB_MS ? 'slow to answer' : null,
      engine,
      latencyMs,
      cluster: cluster ?? null,
    };
  }

  private async disk(): Promise<HealthView['components']['disk']> {
    const path = this.deps.dataDir;
    const wal =
      this.deps.database.kind === 'sqlite' && this.deps.database.file !== ':memory:' ? `${this.deps.database.file}-wal` : null;
    const walBytes = wal === null ? null : await this.deps.disk.size(wal);
    try {
      const { freeBytes, totalBytes } = await this.deps.disk.space(path);
      const share = totalBytes === 0 ? 0 : freeBytes / totalBytes;
      const state: State =
        share < DISK_FULL.share || freeBytes < DISK_FULL.bytes
          ? 'down'
          : share < DISK_LOW.share || freeBytes < DISK_LOW.bytes
            ? 'degraded'
            : 'ok';
      return {
        state,
        note: state === 'ok' ? null : 'the data folder is running out of space',
        path,
        freeBytes,
        totalBytes,
        walBytes,
      };
    } catch {
      return { state: 'down', note: 'the data folder cannot be read', path, freeBytes: null, totalBytes: null, walBytes };
    }
  }

  private async jobs(now: number): Promise<HealthView['components']['jobs']> {
    const leases = await this.deps.kernel.jobLeases();
    const running = leases.filter((l) => l.finishedAt === null && l.leaseUntil > now).map((l) => l.name);
    const stale = leases.filter((l) => l.finishedAt === null && l.leaseUntil <= now).map((l) => l.name);
    const failing = leases.filter((l) => l.lastError !== null).map((l) => ({ job: l.name, error: l.lastError as string }));
    const state: State = stale.length + failing.length > 0 ? 'degraded' : 'ok';
    const note =
      state === 'ok'
        ? null
        : [...stale.map((j) => `${j} stopped mid-run`), ...failing.map((f) => `${f.job} failed its last run`)].join('; ');
    return { state, note, running, stale, failing };
  }

  private async webhooks(now: number): Promise<HealthView['components']['webhooks']> {
    const [pending, unrouted] = await Promise.all([this.deps.webhooks.backlog(), this.deps.kernel.unroutedEvents()]);
    const unroutedAge = ageS(unrouted.oldestAt, now);
    const pendingAge = ageS(pending.oldestAt, now);
    const late = [
      ...(unroutedAge !== null && unroutedAge > UNROUTED_LATE_S ? ['events wait to be routed'] : []),
      ...(pendingAge !== null && pendingAge > PENDING_LATE_S ? ['deliveries wait over an hour'] : []),
    ];
    return {
      state: late.length > 0 ? 'degraded' : 'ok',
      note: late.length > 0 ? late.join('; ') : null,
      pendingDeliveries: pending.count,
      oldestPendingAgeS: pendingAge,
      unroutedEvents: unrouted.count,
      oldestUnroutedAgeS: unroutedAge,
    };
  }

  private async mail(now: number): Promise<HealthView['components']['mail']> {
    const r = await this.deps.kernel.mailRates(now - DAY_MS);
    const state = rateState(r.refused, r.sent + r.refused);
    return {
      state,
      note: state === 'ok' ? null : `the transport refused ${r.refused} of ${r.sent + r.refused} messages in a day`,
      transport: this.deps.mailTransport,
      sent24h: r.sent,
      refused24h: r.refused,
    };
  }
}

/** A driver error's code (`ECONNREFUSED`, `28P01`), never its message. */
const failureCode = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : 'no answer';
};
