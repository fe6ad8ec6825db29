import { createHash, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import pkcs11js from 'pkcs11js';
import type {
  GeneratedKey,
  KeyBackend,
  KeyBackendHealth,
  KeyObjectState,
  KeyOwner,
  PrivateKeyRef,
} from '../../../ports/key-backend.ts';
import { ckrOf, type Pkcs11Options, type Session, TokenSessions } from './pkcs11-sessions.ts';
import { signingUnavailable } from './unavailable.ts';

export type { Pkcs11Options } from './pkcs11-sessions.ts';

/** DER of the P-256 curve's OID 1.2.840.10045.3.1.7, the value of CKA_EC_PARAMS. */
const P256_PARAMS = Buffer.from('06082a8648ce3d030107', 'hex');

/** A token object's label: an operator reading the token can tell tenant, purpose and kid apart. */
export const objectLabel = (owner: KeyOwner, kid: string) =>
  'authority' in owner ? `openrail/platform-ca/${kid}` : `openrail/${owner.tenant}/${owner.purpose}/${kid}`;

/**
 * Keys generated and used inside a PKCS#11 token through pkcs11js (OPENRAIL_KEYS=pkcs11). A key
 * is made in the token, sensitive and never extractable; the database keeps its public key and the
 * object's label and id. Every operation runs on one of the process's sessions on the token
 * (pkcs11-sessions.ts), which reopens what was lost once and otherwise answers 503
 * `signing_unavailable` until the token is back.
 */
export class Pkcs11KeyBackend implements KeyBackend {
  readonly kind = 'pkcs11';
  private readonly sessions: TokenSessions;

  constructor(opts: Pkcs11Options) {
    this.sessions = new TokenSessions(opts);
  }

  private get lib(): pkcs11js.PKCS11 {
    return this.sessions.lib;
  }

  async generate(owner: KeyOwner): Promise<GeneratedKey> {
    return this.sessions.run(async (s) => {
      const id = randomBytes(16);
      const label = `openrail/pending/${id.toString('hex')}`;
      const { publicKey, privateKey } = await this.lib.C_GenerateKeyPairAsync(
        s.handle,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
          { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_VERIFY, value: true },
          { type: pkcs11js.CKA_ENCRYPT, value: false },
          { type: pkcs11js.CKA_WRAP, value: false },
          { type: pkcs11js.CKA_DERIVE, value: false },
          { type: pkcs11js.CKA_EC_PARAMS, value: P256_PARAMS },
          { type: pkcs11js.CKA_LABEL, value: label },
          { type: pkcs11js.CKA_ID, value: id },
        ],
        [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
          { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_EC },
          { type: pkcs11js.CKA_TOKEN, value: true },
          { type: pkcs11js.CKA_PRIVATE, value: true },
          { type: pkcs11js.CKA_SENSITIVE, value: true },
          { type: pkcs11js.CKA_EXTRACTABLE, value: false },
          { type: pkcs11js.CKA_SIGN, value: true },
          // Some tokens (SoftHSM among them) allow these unless told not to.
          { type: pkcs11js.CKA_DECRYPT, value: false },
          { type: pkcs11js.CKA_UNWRAP, value: false },
          { type: pkcs11js.CKA_DERIVE, value: false },
          { type: pkcs11js.CKA_LABEL, value: label },
          { type: pkcs11js.CKA_ID, value: id },
        ],
      );
      const [point] = this.lib.C_GetAttributeValue(s.handle, publicKey, [{ type: pkcs11js.CKA_EC_POINT }]);
      const publicJwk = ecPointJwk(point?.value);
      const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
      // The kid is known only now: name both objects after it. A token that does not let a label
      // change keeps the first one, which the reference records either way.
      let named = label;
      try {
        const final = objectLabel(owner, kid);
        for (const object of [publicKey, privateKey])
          this.lib.C_SetAttributeValue(s.handle, object, [{ type: pkcs11js.CKA_LABEL, value: final }]);
        named = final;
      } catch (err) {
        if (!['CKR_ATTRIBUTE_READ_ONLY', 'CKR_ACTION_PROHIBITED'].includes(ckrOf(err) ?? '')) throw err;
      }
      s.keys.set(id.toString('hex'), privateKey);
      return { publicJwk, kid, ref: { backend: 'pkcs11', token: this.sessions.name, label: named, id: id.toString('hex') } };
    });
  }

  async sign(_owner: KeyOwner, kid: string, ref: PrivateKeyRef, data: Uint8Array): Promise<Uint8Array> {
    const digest = createHash('sha256').update(data).digest();
    return this.sessions.run(async (s) => {
      const key = this.privateKey(s, this.ours(ref, kid));
      if (!key) throw signingUnavailable(`the token has no key ${kid}`);
      this.lib.C_SignInit(s.handle, { mechanism: pkcs11js.CKM_ECDSA }, key);
      return this.lib.C_SignAsync(s.handle, digest, Buffer.alloc(64));
    });
  }

  async inspect(_owner: KeyOwner, kid: string, ref: PrivateKeyRef): Promise<KeyObjectState> {
    return this.sessions.run(async (s) => {
      const key = this.privateKey(s, this.ours(ref, kid));
      if (!key) return { present: false };
      const attrs = this.lib.C_GetAttributeValue(s.handle, key, [
        { type: pkcs11js.CKA_SENSITIVE },
        { type: pkcs11js.CKA_EXTRACTABLE },
        { type: pkcs11js.CKA_NEVER_EXTRACTABLE },
        { type: pkcs11js.CKA_ALWAYS_SENSITIVE },
        { type: pkcs11js.CKA_LOCAL },
      ]);
      const flag = (type: number) => attrs.find((a) => a.type === type)?.value[0] === 1;
      return {
        present: true,
        token: {
          sensitive: flag(pkcs11js.CKA_SENSITIVE),
          extractable: flag(pkcs11js.CKA_EXTRACTABLE),
          neverExtractable: flag(pkcs11js.CKA_NEVER_EXTRACTABLE),
          alwaysSensitive: flag(pkcs11js.CKA_ALWAYS_SENSITIVE),
          local: flag(pkcs11js.CKA_LOCAL),
        },
      };
    });
  }

  async destroy(ref: PrivateKeyRef): Promise<boolean> {
    if (ref.backend !== 'pkcs11') return false;
    return this.sessions.run(async (s) => {
      const objectId = this.ours(ref, ref.label);
      const objects = this.find(s, objectId);
      for (const object of objects) this.lib.C_DestroyObject(s.handle, object);
      s.keys.delete(objectId);
      return objects.length > 0;
    });
  }

  async health(): Promise<KeyBackendHealth> {
    try {
      await this.sessions.run(async (s) => this.lib.C_GetSessionInfo(s.handle));
      return { kind: 'pkcs11', token: this.sessions.name, reachable: true, loggedIn: true };
    } catch (err) {
      const { reason: down, pinRefused } = this.sessions.problem;
      const reason = down ?? ckrOf(err) ?? 'unavailable';
      return {
        kind: 'pkcs11',
        token: this.sessions.name,
        reachable: pinRefused,
        loggedIn: false,
        problem: reason,
      };
    }
  }

  close(): Promise<void> {
    return this.sessions.close();
  }

  /** The object id of a reference to a key on this token; anything else is a deployment error. */
  private ours(ref: PrivateKeyRef, kid: string): string {
    if (ref.backend !== 'pkcs11') throw new Error(`key ${kid} is sealed, not a token key`);
    const label = this.sessions.tokenLabel;
    if (ref.token !== label) throw signingUnavailable(`key ${kid} is on token ${ref.token}, not on ${label}`);
    return ref.id;
  }

  /** The private key object of `objectId` on this session, found once; undefined when the token has none. */
  private privateKey(s: Session, objectId: string): Buffer | undefined {
    const known = s.keys.get(objectId);
    if (known) return known;
    const [found] = this.find(s, objectId, pkcs11js.CKO_PRIVATE_KEY);
    if (!found) {
      // Not there: deleted, or a library that lost its token answering empty searches. Asking the
      // token tells them apart (a lost one fails here, and is reopened by withSession).
      this.sessions.tokenInfo();
      return undefined;
    }
    s.keys.set(objectId, found);
    return found;
  }

  private find(s: Session, objectId: string, objectClass?: number): Buffer[] {
    const template: pkcs11js.Template = [{ type: pkcs11js.CKA_ID, value: Buffer.from(objectId, 'hex') }];
    if (objectClass !== undefined) template.push({ type: pkcs11js.CKA_CLASS, value: objectClass });
    this.lib.C_FindObjectsInit(s.handle, template);
    try {
      return this.lib.C_FindObjects(s.handle, 16);
    } finally {
      this.lib.C_FindObjectsFinal(s.handle);
    }
  }
}

/** A P-256 public JWK from CKA_EC_POINT: the uncompressed point 04||x||y, usually inside a DER OCTET STRING. */
export function ecPointJwk(value: Buffer | undefined): JWK {
  let point = value ?? Buffer.alloc(0);
  if (point.length === 67 && point[0] === 0x04 && point[1] === 0x41) point = point.subarray(2);
  if (point.length !== 65 || point[0] !== 0x04)
    throw new Error('the token answered an EC point that is not an uncompressed P-256 point');
  return { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') };
}
