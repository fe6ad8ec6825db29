import type { ClaimSpec } from '../../core/claims/claim-spec.ts';
import type { Clock } from '../../core/clock.ts';
import { ServiceError, Unauthorized } from '../../core/errors.ts';
import type { Ids } from '../../core/ids.ts';
import type { IssuerUrls } from '../../core/issuer-urls.ts';
import type { Random } from '../../core/random.ts';
import { compactSdJwt, discloseClaims, SD_ALG } from '../../core/sd-jwt/disclose.ts';
import { hashToken } from '../../core/secrets.ts';
import type { AccessTokenRecord } from '../../ports/access-token-store.ts';
import type { CNonces } from '../../ports/c-nonces.ts';
import type { CredentialTypeRecord, KeyAttestationRequirement } from '../../ports/credential-type-store.ts';
import type { IssuedCredentialStore } from '../../ports/issued-credential-store.ts';
import { type JwsSigner, type KeyStore, x5c } from '../../ports/key-store.ts';
import type { Meter } from '../../ports/meter.ts';
import type { OfferStore } from '../../ports/offer-store.ts';
import { parseConfigurationId } from '../credential-types/formats.ts';
import type { TypeService } from '../credential-types/type-service.ts';
import { assertIssuing, type TenantService } from '../tenants/tenant-service.ts';
import { type CredentialRequest, parseCredentialRequest } from './credential-request.ts';
import { MDOC_DEFAULT_VALIDITY_MS, mdocCredential } from './issue-mdoc.ts';
import type { KeyAttestations } from './key-attestations.ts';
import { BATCH_SIZE } from './metadata.ts';
import type { StatusSlots } from './status-slots.ts';
import { type ProvenKey, verifyProof } from './verify-proof.ts';

/** Token Status List §13.2: large lists hide each holder in a crowd; half is ever handed out. */
export const STATUS_LIST_SIZE = 131_072;
export const STATUS_LIST_CAPACITY = STATUS_LIST_SIZE / 2;
/** Entries a process reserves at a time (StatusSlots). */
export const STATUS_BLOCK = 128;
/** iat is set back by a random amount up to this, so credentials of one batch are not linkable. */
const IAT_JITTER_S = 300;
const MAX_DECOYS = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

const badNonce = () =>
  new ServiceError('invalid_nonce', 'A proof carries a c_nonce that is unknown, used or expired; fetch a fresh one.');

const tokenProblem = () =>
  new Unauthorized('The access token is unknown, spent or expired.', 'Bearer realm="openrail", error="invalid_token"');

export interface CredentialIssuerDeps {
  types: TypeService;
  offers: OfferStore;
  /** Writes a collection and its events all at once (one statement on PostgreSQL, docs/scaling.md). */
  ledger: IssuedCredentialStore;
  keys: KeyStore;
  nonces: CNonces;
  slots: StatusSlots;
  tenants: TenantService;
  urls: IssuerUrls;
  clock: Clock;
  random: Random;
  ids: Ids;
  /** Checks a proof's key attestation for a type that requires one (oauth-checks.ts). */
  attestations: KeyAttestations;
  meter: Meter;
}

/** The credential endpoint (OID4VCI 1.0 §8): verify proofs, then collect and sign atomically. */
export class CredentialIssuer {
  constructor(private readonly deps: CredentialIssuerDeps) {}

  /**
   * The credentials of a request at issuer `tenant`. The first read is the issuer with the offer
   * the token grants (one round trip, docs/scaling.md): an unknown issuer is `unknown_tenant`, a
   * suspended one `credential_request_denied`.
   */
  async issue(tenant: string, token: AccessTokenRecord, body: unknown): Promise<string[]> {
    const { issuer: state, offer } = await this.deps.offers.atIssuer(tenant, { id: token.grantId });
    assertIssuing(tenant, state, (message) => new ServiceError('credential_request_denied', message));
    // A token is valid only at the issuer that granted it.
    if (token.tenant !== tenant) throw tokenProblem();
    const request = parseCredentialRequest(body);
    const { typeId, format } = parseConfigurationId(request.configurationId);
    const found = await this.deps.types.find(tenant, typeId);
    const type = found?.formats.includes(format) ? found : undefined;
    if (!type) {
      throw new ServiceError(
        'unknown_credential_configuration',
        `This issuer has no configuration "${request.configurationId}".`,
      );
    }
    if (!offer?.subject) throw tokenProblem();
    if (offer.typeId !== type.typeId) {
      throw new ServiceError('invalid_credential_request', `The access token grants "${offer.typeId}", not "${type.typeId}".`);
    }
    const now = this.deps.clock.now();
    const issuer = this.deps.urls.issuer(tenant);
    const required = await this.deps.types.keyAttestationOf(tenant, type.typeId);
    const keys = await this.provenKeys(request.proofs, issuer, required, now);
    if (new Set(keys.map((k) => k.thumbprint)).size !== keys.length) {
      throw new ServiceError('invalid_proof', 'Each proof of a batch must use its own key.');
    }
    // Proofs of one batch may share a c_nonce; each distinct nonce is spent once.
    const nonces = new Map<string, number>();
    for (const { nonce } of keys) {
      const expiresAt = this.deps.nonces.check(tenant, nonce, now);
      if (expiresAt === undefined) throw badNonce();
      nonces.set(hashToken(nonce), expiresAt);
    }
    const signer = await this.deps.keys.signer(tenant, 'issuer');
    const did = this.deps.tenants.didOf(tenant);
    const vct = this.deps.urls.vct(tenant, type.typeId);
    const subject = offer.subject;
    const mdoc = format === 'mso_mdoc' ? mdocOf(type, signer) : undefined;
    const disclosed = mdoc
      ? []
      : keys.map(() =>
          discloseClaims(
            disclosable(type.claims, subject),
            (n) => this.deps.random.bytes(n),
            1 + this.deps.random.int(MAX_DECOYS),
          ),
        );
    const validityDays = await this.deps.types.validityOf(tenant, type.typeId);
    // An mdoc always says until when it is valid (docs/mdoc.md): a year when the type sets nothing.
    const expiresAt = validityDays !== null ? now + validityDays * DAY_MS : mdoc ? now + MDOC_DEFAULT_VALIDITY_MS : null;
    const lists = await this.deps.slots.take(tenant, keys.length);
    const listUri = (slot: { listSeq: number }) => this.deps.urls.statusList(tenant, slot.listSeq);
    // The collection and its credential.issued events are written together.
    const result = await this.deps.ledger.collect(
      {
        tenant,
        typeId: type.typeId,
        offerId: offer.id,
        tokenHash: token.tokenHash,
        nonces: [...nonces].map(([hash, expiresAt]) => ({ hash, expiresAt })),
        holderThumbprints: keys.map((k) => k.thumbprint),
        lists,
        now,
        expiresAt,
        randomIndex: (size) => this.deps.random.int(size),
        newCredentialId: () => this.deps.ids.mint('credential'),
        events: (slots) =>
          slots.map((slot) => ({
            type: 'credential.issued' as const,
            tenant,
            data: {
              credentialId: slot.credentialId,
              typeId: type.typeId,
              offerId: offer.id,
              status: { uri: listUri(slot), idx: slot.idx },
            },
          })),
      },
      async (slots) =>
        Promise.all(
          slots.map(async (slot, i) => {
            const key = keys[i];
            if (!key) throw new Error('one slot per proof');
            if (mdoc) {
              const credential = await mdocCredential({
                ...mdoc,
                subject,
                key,
                status: { idx: slot.idx, uri: listUri(slot) },
                signedAt: now - this.deps.random.int(IAT_JITTER_S) * 1000,
                validUntil: (expiresAt as number) - this.deps.random.int(IAT_JITTER_S) * 1000,
                random: (n) => Uint8Array.from(this.deps.random.bytes(n)),
              });
              return { slot, credential };
            }
            const d = disclosed[i];
            if (!d) throw new Error('one disclosure set per proof');
            const jwt = await signer.sign(
              { typ: 'dc+sd-jwt', kid: `${did}#${signer.kid}`, ...x5c(signer) },
              {
                iss: did,
                iat: Math.floor(now / 1000) - this.deps.random.int(IAT_JITTER_S),
                // Set back like iat, so that the credentials of one batch do not share an exp either.
                ...(expiresAt === null ? {} : { exp: Math.floor(expiresAt / 1000) - this.deps.random.int(IAT_JITTER_S) }),
                vct,
                cnf: { jwk: key.jwk },
                status: { status_list: { idx: slot.idx, uri: listUri(slot) } },
                _sd: d.sd,
                _sd_alg: SD_ALG,
              },
            );
            return { slot, credential: compactSdJwt(jwt, d.disclosures) };
          }),
        ),
    );
    if (!result.ok) throw result.reason === 'nonce' ? badNonce() : tokenProblem();
    const issued = result.value.map((r) => r.credential);
    this.deps.meter.issued(issued.length);
    return issued;
  }

  /**
   * The keys the credentials are bound to, each with the c_nonce that proved it fresh: one per
   * `jwt` proof (its key attestation checked when the type requires one), or every key of an
   * `attestation` proof, which only a type that requires key attestation takes.
   */
  private async provenKeys(
    proofs: CredentialRequest['proofs'],
    issuer: string,
    required: KeyAttestationRequirement | null,
    now: number,
  ): Promise<ProvenKey[]> {
    if (proofs.type === 'attestation') {
      if (!required) {
        throw new ServiceError(
          'invalid_proof',
          'This credential type takes jwt proofs; the attestation proof type is for types that require key attestation.',
        );
      }
      const keys = await this.deps.attestations.attestedKeys(proofs.attestation, required, { use: 'proof_type.attestation' });
      if (keys.length > BATCH_SIZE) {
        throw new ServiceError('invalid_proof', `The key attestation attests more than ${BATCH_SIZE} keys (batch_size).`);
      }
      return keys;
    }
    const keys = proofs.jwts.map((jwt) => verifyProof(jwt, issuer, now));
    if (required) for (const key of keys) await this.deps.attestations.checkKeyAttestation(key, required);
    return keys;
  }
}

/** What an mdoc of `type` needs of it and of the signer: its mdoc profile, and the key's certificate for x5chain. */
function mdocOf(type: CredentialTypeRecord, signer: JwsSigner) {
  const { mdoc } = type;
  if (!mdoc) throw new Error(`type ${type.typeId} offers mso_mdoc without an mdoc profile`);
  if (!signer.x5c) {
    throw new ServiceError(
      'signing_unavailable',
      'The issuer key has no certificate yet, which an mdoc must carry; try again shortly.',
    );
  }
  return { type: { ...type, mdoc }, signer: { ...signer, x5c: signer.x5c } };
}

/** Every subject claim is a top-level disclosure; array elements are disclosed one by one. */
function disclosable(claims: readonly ClaimSpec[], subject: Record<string, unknown>) {
  return claims.map((c) => ({
    name: c.key,
    value: subject[c.key],
    elementsDisclosable: c.kind === 'array(text)' || c.kind === 'array(object)',
  }));
}
