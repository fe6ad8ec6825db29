import type { FastifyBaseLogger } from 'fastify';
import type { Db, OpenOptions } from '../adapters/sql/connect.ts';
import type { Config, DatabaseLocation } from '../config/config.ts';
import type { Clock } from '../core/clock.ts';
import type { Ids } from '../core/ids.ts';
import type { IssuerUrls } from '../core/issuer-urls.ts';
import type { Random } from '../core/random.ts';
import type { AnonymousGate } from '../http/auth/anonymous-gate.ts';
import type { AuthPlane, PlaneName } from '../http/auth/principal.ts';
import type { RouteGroup } from '../http/route.ts';
import type { DiskState } from '../ports/account-erasure-store.ts';
import type { BackupEngine } from '../ports/backup-engine.ts';
import type { ClusterState } from '../ports/cluster-state.ts';
import type { HolderRecords } from '../ports/holder-records.ts';
import type { HttpFetcher } from '../ports/http-fetcher.ts';
import type { RateBudget } from '../ports/integration-token-store.ts';
import type { KernelViews } from '../ports/kernel-views.ts';
import type { KeyBackend } from '../ports/key-backend.ts';
import type { KeyCertifier, RootReplacement } from '../ports/key-certifier.ts';
import type { KeyStore } from '../ports/key-store.ts';
import type { KeyVault } from '../ports/key-vault.ts';
import type { Mailer } from '../ports/mailer.ts';
import type { Meter } from '../ports/meter.ts';
import type { ShippedBuild } from '../ports/shipped-build.ts';
import type { UnitOfWork } from '../ports/unit-of-work.ts';
import type { Job } from './jobs.ts';

/**
 * A module is one role of the service (docs/architecture.md, "Modules"): it builds its own
 * stores, services, route groups, credential planes and background jobs from the kernel's
 * narrow context and from the services of the modules it uses.
 *
 * A module is built at most once, when it is mounted or when a mounted module uses it; a module
 * that is neither is never built. Its routes are registered only when it is mounted; its jobs
 * run whenever it is built, because they keep its data in order (erasure, expiry) whoever serves
 * the routes.
 */
export interface Module<S = unknown, V = unknown> {
  readonly name: string;
  /** Its route groups by name: the names OPENRAIL_UNMOUNTED_GROUPS takes. */
  readonly groups: readonly string[];
  /** The credential planes it provides to every module's routes. */
  readonly planes?: readonly PlaneName[];
  /**
   * Built even when none of its groups is mounted, because its jobs and daemons keep data every
   * process shares in order (webhook delivery routes the outbox, which grows until it is routed).
   */
  readonly runsUnmounted?: boolean;
  /**
   * The stores of the tables it owns (docs/architecture.md, "Data belongs to its module"): only
   * this module builds them (`Context.store`); every other module reaches that data through its
   * views and services. A store class is owned by one module.
   */
  readonly owns?: readonly StoreClass[];
  /**
   * The read port it publishes of its tables (docs/architecture.md, "Tables, owners and views"): a
   * store it owns, which another module reads through `Context.viewsOf`. That builds this store
   * alone, never the module, so reading an unmounted module's rows neither builds it nor runs its jobs.
   */
  readonly views?: StoreClass<V>;
  /**
   * Its part of the holder-data registry (docs/holder-data.md): a store it owns that runs the
   * registry's entries of its tables, and only those. The account erasure, the export and the
   * data-subject lookup compose every module's (`Context.holderRecords`), built alone as views
   * are, since what an erasure reaches cannot depend on which modules this process builds.
   */
  readonly holderRecords?: StoreClass<HolderRecords>;
  build(ctx: Context): Promise<Built<S>> | Built<S>;
}

export interface Built<S> {
  /** What other modules may use (Context.use). */
  services: S;
  /** The route groups, asked for only when the module is mounted; unmounted groups are dropped. */
  routes?: () => RouteGroup[];
  /** Every plane named in `Module.planes`. */
  planes?: Partial<Record<PlaneName, AuthPlane>>;
  jobs?: Job[];
  /** Work that runs all the time while the service does (webhook delivery). */
  daemons?: Daemon[];
}

/**
 * A loop a module runs for as long as the process serves, unlike a Job, which runs once per
 * period on one process: every process runs every daemon, which shares its work with the other
 * processes through leases of its own (webhook lanes). Started after the routes are ready, stopped
 * before the database closes.
 */
export interface Daemon {
  readonly name: string;
  start(): void;
  /** Stops taking work and waits for what is in flight. */
  stop(): Promise<void>;
}

/** A store of `adapters/sql`, built on the database by the kernel. */
// biome-ignore lint/suspicious/noExplicitAny: any store's constructor; the kernel passes the database only.
export type StoreClass<T = any> = new (db: Db) => T;

/** What a module may ask of the database itself, beside its stores. */
export interface DatabaseUpkeep {
  /** Answers when the database takes writes (readiness): on PostgreSQL, a primary. */
  ping(): Promise<void>;
  /** The PostgreSQL cluster as this node sees it; undefined on SQLite (ops/health). */
  cluster(): Promise<ClusterState | undefined>;
  /** Makes erased bytes leave the disk where the engine allows it (connect.ts, dropFreedBytes). */
  dropFreedBytes(): Promise<DiskState>;
  /** Backups with the engine's own method, and their restores (adapters/sql/backup/engine.ts). */
  readonly backups: BackupEngine;
}

/**
 * The kernel every module builds from: configuration, infrastructure, its own stores, and the
 * other modules. It holds no database handle: a module's stores are the only way to its data,
 * and they are ambient (decision 0020), so that called from inside a unit of work they write in
 * its transaction.
 */
export interface Context {
  readonly config: Config;
  readonly clock: Clock;
  /** Mints every identifier (core/ids.ts), from the randomness the kernel gives it. */
  readonly ids: Ids;
  /** Every other random value a feature draws (secrets, handles, salts, jitter): the CSPRNG, or a test's own. */
  readonly random: Random;
  readonly log: FastifyBaseLogger;
  /** Tenant signing keys, wherever the deployment keeps them (docs/keys.md). */
  readonly keys: KeyStore;
  /** Where private keys are made and sign (OPENRAIL_KEYS): for a store of keys on another database (a drill's replica). */
  readonly keyBackend: KeyBackend;
  /** The certificate authority behind every signing key's certificate (docs/haip.md). */
  readonly certifier: KeyCertifier;
  /** Replacing the platform root (docs/keys.md); null when the operator's own chain certifies the keys. */
  readonly roots: RootReplacement | null;
  /** Keys derived from the master key, one per purpose. */
  readonly vault: KeyVault;
  /** Every issuer address, derived from PUBLIC_URL. */
  readonly urls: IssuerUrls;
  /** Outbound HTTP with the SSRF policy inside. */
  readonly fetcher: HttpFetcher;
  /** The anonymous budgets (docs/security.md): every anonymous write spends from them first. */
  readonly budgets: AnonymousGate;
  /** The break-glass owner token's hash (docs/authentication.md), read per request. */
  readonly ownerTokenHash: () => Promise<string | undefined>;
  /** Rate windows shared by every plane and module (the integration keys' classes, budgets). */
  readonly rates: RateBudget;
  readonly database: DatabaseUpkeep;
  /** What the service counts for GET /metrics (`noMeter` when metrics are off). */
  readonly meter: Meter;
  /** What the kernel's own tables publish (the audit chain, the outbox, leases, keys, mail outcomes): reads only. */
  readonly views: KernelViews;
  /** The deployment's one mail transport (OPENRAIL_SMTP_URL or the development outbox), its outcomes recorded. */
  readonly mailer: Mailer;
  /** The services of another module, building it first if need be. */
  use<S>(module: Module<S>): Promise<S>;
  /** The views another module publishes (`Module.views`), built once, without building that module. */
  viewsOf<V>(module: Module<unknown, V>): V;
  /** Every module's part of the holder-data registry (`Module.holderRecords`) and the kernel's, covering it whole. */
  holderRecords(): readonly HolderRecords[];
  /** One of this module's stores (`Module.owns`), built once. */
  store<T>(store: StoreClass<T>): T;
  /**
   * The unit of work (ports/unit-of-work.ts): what a use case calls inside its `run`, this
   * module's stores and every other module's services, is in its one transaction. It takes no
   * stores: they join the transaction by themselves (decision 0020).
   */
  unitOfWork(): UnitOfWork;
  /** The contract document of the mounted routes (complete once the service has started). */
  openApi(): Record<string, unknown>;
  /** This process among those sharing the database (`host:pid:nonce`): the holder of its job leases. */
  readonly processName: string;
  /** The route groups this process serves (complete once the service has started). */
  mountedGroups(): readonly string[];
  /** The package this process runs, as installed (its version, its build record, its files now). */
  readonly shipped: ShippedBuild;
  /** Starts this service on another database (a restore drill's scratch copy). */
  readonly replicas: ReplicaStarter;
}

/**
 * The same service started on another database, with this deployment's configuration and master
 * key, without jobs, metrics or a listener; the caller closes it. The composition root provides
 * it (app/start.ts), so that the kernel's interface does not name its own boot.
 */
export interface ReplicaStarter {
  start(database: DatabaseLocation, options: OpenOptions): Promise<Replica>;
}

/** What a caller reads of a replica: its modules' services and views, and stores on its database. */
export interface Replica {
  services<S>(module: Module<S>): Promise<S>;
  viewsOf<V>(module: Module<unknown, V>): V;
  /** A store of `adapters/sql` on the replica's database (the kernel's reads a drill makes; module wiring only). */
  store<T>(store: StoreClass<T>): T;
  close(): Promise<void>;
}

/** Declares a module; the identity function, for type inference of its services. */
export const defineModule = <S, V = unknown>(module: Module<S, V>): Module<S, V> => module;
