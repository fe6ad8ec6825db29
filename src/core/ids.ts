/**
 * Every identifier the service mints (docs/architecture.md, "Identifiers"): one prefix per kind,
 * written here once, and 22 base64url characters of randomness (16 bytes) after it. What mints
 * and what recognises an identifier both come from this table, so the two cannot drift apart.
 * The randomness is injected, as the clock is: the kernel gives the CSPRNG (adapters/crypto/ids.ts).
 */
export const ID_PREFIXES = {
  /** A pushed authorization request of the authorization code flow (docs/haip.md). */
  authorization: 'azr',
  /** An approval of the four-eyes desk. */
  approval: 'apr',
  /** A partner application. */
  application: 'pap',
  /** An operator's attestation of a statement (docs/backoffice/compliance.md). */
  statementAttestation: 'ats',
  /** An onboarding attestation (its JWT's jti). */
  attestation: 'att',
  /** A backup of the database (docs/operations.md, "Backups and restore drills"). */
  backup: 'bkp',
  /** A restore drill of a backup. */
  drill: 'drl',
  /** A coin entry of a member's ledger. */
  coinEntry: 'coin',
  /** An issued credential. */
  credential: 'crd',
  /** A webhook delivery. */
  delivery: 'dlv',
  /** An erasure of a holder account. */
  erasure: 'era',
  /** A data-subject access request (docs/backoffice/compliance.md). */
  accessRequest: 'dsr',
  /** An erasure request filed by an operator (docs/backoffice/compliance.md). */
  erasureRequest: 'erq',
  /** An outbox event. */
  event: 'evt',
  /** An incident of the breach register (docs/backoffice/compliance.md). */
  incident: 'inc',
  /** An integration token (a partner's key is one). */
  integrationToken: 'itk',
  /** A wallet item. */
  item: 'itm',
  /** A mailed one-time code. */
  mailedCode: 'obc',
  /** A message handed to the mail transport (docs/operations.md, "Comms health"). */
  mailOutcome: 'mlo',
  /** A credential offer. */
  offer: 'off',
  /** A retention purge run (docs/backoffice/compliance.md). */
  purgeRun: 'prg',
  /** A deposit product. */
  product: 'prd',
  /** A governance proposal. */
  proposal: 'prop',
  /** A provisioning request for an integration token. */
  provisioning: 'prv',
  /** An entry of a wallet item's sharing log. */
  sharingEntry: 'shl',
  /** A member of a partner's team. */
  teamMember: 'ptm',
  /** A hosted presentation (verification) transaction. */
  transaction: 'vtx',
  /** A webhook endpoint. */
  webhook: 'whk',
  /** A registered wallet provider. */
  walletProvider: 'wlt',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/** The random part: 16 bytes as base64url. */
const RANDOM_PART = '[A-Za-z0-9_-]{22}';

/** A JSON-Schema pattern that admits exactly the identifiers of a kind. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${RANDOM_PART}$`;
}

/** A JSON-Schema pattern that admits exactly the identifiers of any of these kinds. */
export function idPatternOfAny(kinds: readonly IdKind[]): string {
  return `^(?:${kinds.map((k) => ID_PREFIXES[k]).join('|')})_${RANDOM_PART}$`;
}

/**
 * The shape a lookup accepts for an identifier of a kind: its prefix and 1 to 60 base64url
 * characters, wider than what is minted, so that a mistyped or partial identifier finds nothing
 * instead of being refused (a credential's id in a path, the back office's search).
 */
export function idLikePattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[A-Za-z0-9_-]{1,60}$`;
}

const matchers = new Map<string, RegExp>();
const matcher = (pattern: string) => {
  let found = matchers.get(pattern);
  if (!found) {
    found = new RegExp(pattern);
    matchers.set(pattern, found);
  }
  return found;
};

/** Whether `value` is an identifier of this kind (its shape: whether one exists is the store's). */
export function isId(kind: IdKind, value: string): boolean {
  return matcher(idPattern(kind)).test(value);
}

/** Whether `value` has the shape a lookup of this kind accepts (idLikePattern). */
export function isIdLike(kind: IdKind, value: string): boolean {
  return matcher(idLikePattern(kind)).test(value);
}

/** Mints identifiers. */
export interface Ids {
  mint(kind: IdKind): string;
}

/**
 * The minter over a source of randomness, which answers 22 base64url characters (16 bytes) a
 * call. A source that answers anything else is refused at once, so that what is minted is always
 * what `isId` recognises.
 */
export function idMinter(random: () => string): Ids {
  const part = new RegExp(`^${RANDOM_PART}$`);
  return {
    mint(kind) {
      const r = random();
      if (!part.test(r)) throw new Error('the identifier randomness is not 22 base64url characters');
      return `${ID_PREFIXES[kind]}_${r}`;
    },
  };
}
