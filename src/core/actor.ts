/**
 * Who made a change: recorded with every audit entry. An operator is named by username; the
 * break-glass owner token has no username; a wallet or an anonymous caller acting on a public
 * protocol endpoint is recorded as such; `system` is the service itself (seeding, background jobs).
 */
export type Actor =
  | { kind: 'operator'; username: string }
  | { kind: 'owner-token' }
  | { kind: 'holder'; accountId: string }
  | { kind: 'public' }
  | { kind: 'system'; what: string };

export const SYSTEM_SEED: Actor = { kind: 'system', what: 'seed' };

/** The actor as one stable string: `operator:<username>`, `owner-token`, `holder:<account>`, `public`, `system:<what>`. */
export function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case 'operator':
      return `operator:${actor.username}`;
    case 'holder':
      return `holder:${actor.accountId}`;
    case 'system':
      return `system:${actor.what}`;
    default:
      return actor.kind;
  }
}
