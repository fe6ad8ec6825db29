import { type Static, Type } from '@sinclair/typebox';
import { DateTimeView, Nullable } from '../../../http/schemas/common.ts';

/** The view of `GET /ops/health` (docs/operations.md, "Health"). */

export const State = Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]);
export type State = Static<typeof State>;

const Component = <T extends Parameters<typeof Type.Object>[0]>(fields: T) =>
  Type.Object({ state: State, note: Nullable(Type.String()), ...fields });

export const HealthView = Type.Object({
  state: State,
  checkedAt: DateTimeView,
  components: Type.Object({
    database: Component({
      engine: Type.String(),
      latencyMs: Nullable(Type.Number()),
      cluster: Nullable(
        Type.Object(
          {
            role: Type.String({ description: 'primary, or standby (this node cannot write).' }),
            server: Nullable(Type.String({ description: 'The address and port the node reaches.' })),
            synchronousStandbyNames: Type.String(),
            synchronousCommit: Type.String(),
            synchronous: Type.Boolean({ description: 'A standby acknowledges commits now.' }),
            detailed: Type.Boolean({ description: 'The role sees the standbys’ details (pg_monitor).' }),
            standbys: Type.Array(
              Type.Object({
                name: Nullable(Type.String()),
                state: Nullable(Type.String()),
                syncState: Nullable(Type.String()),
                replayLagMs: Nullable(Type.Number()),
              }),
            ),
          },
          { description: 'The PostgreSQL cluster as this node sees it; null on SQLite (docs/high-availability.md).' },
        ),
      ),
    }),
    disk: Component({
      path: Type.String({ description: 'The data folder.' }),
      freeBytes: Nullable(Type.Integer()),
      totalBytes: Nullable(Type.Integer()),
      walBytes: Nullable(Type.Integer({ description: 'The SQLite write-ahead log; null on PostgreSQL.' })),
    }),
    jobs: Component({
      running: Type.Array(Type.String(), { description: 'Jobs whose lease is held by a run in progress.' }),
      stale: Type.Array(Type.String(), { description: 'Jobs whose run ended without finishing (its process died).' }),
      failing: Type.Array(Type.Object({ job: Type.String(), error: Type.String() })),
    }),
    webhooks: Component({
      pendingDeliveries: Type.Integer(),
      oldestPendingAgeS: Nullable(Type.Integer()),
      unroutedEvents: Type.Integer(),
      oldestUnroutedAgeS: Nullable(Type.Integer()),
    }),
    mail: Component({
      transport: Type.String({ description: 'smtp or outbox (development).' }),
      sent24h: Type.Integer(),
      refused24h: Type.Integer(),
    }),
    keys: Component({
      backend: Type.String({ description: 'sealed or pkcs11 (OPENRAIL_KEYS, docs/keys.md).' }),
      token: Nullable(Type.String({ description: 'The token’s label; null for sealed.' })),
      loggedIn: Type.Boolean({ description: 'The process has a session on the token, logged in (always true for sealed).' }),
      signLatencyMs: Nullable(
        Type.Number({
          description: 'A probe signature by the platform’s key in the token, timed; null for sealed or when it failed.',
        }),
      ),
      activeKeys: Type.Integer({ description: 'Keys that sign now, checked.' }),
      missing: Type.Array(
        Type.Object({ tenant: Type.String(), kid: Type.String(), label: Type.Union([Type.String(), Type.Null()]) }),
        {
          description: 'Keys that sign now whose private part cannot be found where their row says (at most 20).',
        },
      ),
      rootKeyPresent: Nullable(
        Type.Boolean({
          description:
            'The key of the platform root in force is where it is kept (asked now); null when that cannot be asked, or the operator’s chain certifies.',
        }),
      ),
      roots: Type.Array(
        Type.Object({
          authorityKeyId: Type.String(),
          state: Type.String({ description: 'in_force, waiting (takes over at activeFrom) or replaced.' }),
          activeFrom: DateTimeView,
          notAfter: DateTimeView,
          published: Type.Boolean({ description: 'In /.well-known/openrail-ca.pem now.' }),
          keyDestroyed: Type.Boolean(),
        }),
        {
          description:
            'The platform roots this process knows, oldest first; empty when the operator’s own chain certifies the keys (docs/keys.md, "Replacing the platform root").',
        },
      ),
    }),
  }),
});
export type HealthView = Static<typeof HealthView>;
