/**
 * Who made a change, as an audit entry records it (docs/audit.md). An operator is named by
 * username; the break-glass owner token has no username; `system` is the service itself (today:
 * seeding). `token` is a tenant-scoped integration token, by its id (docs/integration.md). `holder` names a wallet by its key thumbprint (a vote, an enrolment by presentation);
 * `public` names an anonymous caller (a partner application, the /demo page's offers and revocations).
 */
export type Actor =
  | { kind: 'operator'; username: string }
  | { kind: 'owner-token' }
  | { kind: 'token'; tokenId: string }
  | { kind: 'holder'; accountId: string }
  | { kind: 'partner'; memberId: string }
  | { kind: 'public' }
  | { kind: 'system'; what: string };

export const SYSTEM_SEED: Actor = { kind: 'system', what: 'seed' };

/** The actor as one stable string: `operator:<username>`, `owner-token`, `token:<id>`, `holder:<account>`, `partner:<team member id>`, `public`, `system:<what>`. */
export function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case 'operator':
      return `operator:${actor.username}`;
    case 'holder':
      return `holder:${actor.accountId}`;
    case 'partner':
      return `partner:${actor.memberId}`;
    case 'token':
      return `token:${actor.tokenId}`;
    case 'system':
      return `system:${actor.what}`;
    default:
      return actor.kind;
  }
}
