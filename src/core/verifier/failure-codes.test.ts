/**
 * Every failure code of the reference verifier, each triggered by a presentation that breaks
 * exactly the link the code names (docs: src/core/verifier/ledger.ts). The last test fails when a
 * code is added to FAILURE_CODES without a test here.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { deflateRawSync, gzipSync } from 'node:zlib';
import {
  AUD,
  assertAccept,
  assertFailure,
  CLAIMS,
  credential,
  credentialPayload,
  disclosure,
  disclosuresOf,
  encodeJson,
  es256By,
  handCredential,
  handKeyBinding,
  handStatusList,
  hs256,
  ISSUER,
  inputOf,
  jws,
  LIST_SIZE,
  LIST_URI,
  NOW,
  newWorld,
  OTHER_ISSUER,
  present,
  presentAll,
  random,
  rawDisclosure,
  show,
  signCredential,
  statusList,
  VCT,
} from '../../../test/helpers/verifier.ts';
import { buildDidDocument } from '../did-web.ts';
import { b64url, sdDigest } from '../sd-jwt/disclose.ts';
import { CHECKS, FAILURE_CHECK, FAILURE_CODES, type FailureCode } from './ledger.ts';
import {
  CLOCK_SKEW_S,
  KB_MAX_AGE_S,
  type VerificationInput,
  type VerificationResult,
  verifyPresentation,
} from './verify-presentation.ts';

const w = newWorld();
const YEAR = 365 * 24 * 3600;

type InputOver = Parameters<typeof inputOf>[2];
const verify = (presentation: string, over?: InputOver): VerificationResult => verifyPresentation(inputOf(w, presentation, over));

/** Codes with at least one test, filled when the tests are registered. */
const covered = new Map<FailureCode, number>();
function failureCode(code: FailureCode, body: (variant: (name: string, fn: () => void) => void) => void) {
  describe(code, () =>
    body((name, fn) => {
      covered.set(code, (covered.get(code) ?? 0) + 1);
      it(name, fn);
    }),
  );
}

/** The four subject disclosures of a hand-made credential plus `extra`, all referenced from `_sd`. */
function withExtraDisclosures(extra: readonly string[], over: Record<string, unknown> = {}): string {
  const good = Object.entries(CLAIMS).map(([name, value]) => disclosure(name, value));
  const jwt = signCredential(w, credentialPayload(w, [...good, ...extra], over));
  return present(w, jwt, [...good, ...extra]);
}

/** A sound presentation with every check passed: the baseline each case breaks one link of. */
describe('controls: the baselines accept', () => {
  it('a builder credential, all disclosures, builder key binding and status list', () => {
    const r = verify(presentAll(w, credential(w)));
    assertAccept(r);
    assert.deepEqual(r.claims, CLAIMS);
    assert.ok(r.ledger.every((e) => e.status === 'passed'));
  });
  it('a hand-made credential and a hand-made KB-JWT', () => {
    const c = handCredential(w);
    const sdJwt = `${[c.jwt, ...c.disclosures].join('~')}~`;
    assertAccept(verify(handKeyBinding(w, sdJwt)));
  });
  it('hand-built status lists of 1, 2, 4 and 8 bits with the entry clear and its neighbours set', () => {
    const c = credential(w);
    for (const bits of [1, 2, 4, 8]) {
      const max = 2 ** bits - 1;
      const list = handStatusList(w, {
        bits,
        entries: [
          [w.idx - 1, max],
          [w.idx + 1, max],
        ],
      });
      assertAccept(verify(presentAll(w, c), { statusList: list }));
    }
  });
  it('a status list whose key id is the full DID URL', () => {
    const list = handStatusList(w, { header: { kid: `${ISSUER}#${w.issuer.kid}` } });
    assertAccept(verify(presentAll(w, credential(w)), { statusList: list }));
  });
});

describe('failure codes', () => {
  failureCode('malformed_presentation', (variant) => {
    const c = credential(w);
    const sound = presentAll(w, c);
    const [header, payload] = c.jwt.split('.') as [string, string, string];
    const malformed = (presentation: string) => {
      const r = verify(presentation);
      assertFailure(r, 'malformed_presentation');
      assert.deepEqual(
        r.ledger.filter((e) => e.check !== 'structure').map((e) => e.status),
        Array(9).fill('not_performed'),
        'nothing else can be judged',
      );
      assert.equal(r.keyBinding, null);
    };
    variant('an issuer JWT without any "~"', () => malformed(c.jwt));
    variant('the issuer JWT lost its signature segment', () => malformed(sound.replace(`${c.jwt}~`, `${header}.${payload}~`)));
    variant('an empty disclosure between two "~"', () => malformed(sound.replace(`${c.jwt}~`, `${c.jwt}~~`)));
    variant('the final part is not a JWS', () => malformed(`${sound.slice(0, sound.lastIndexOf('~') + 1)}not-a-kb-jwt`));
    variant('the issuer JWT payload is not JSON', () =>
      malformed(sound.replace(`${c.jwt}~`, `${header}.${b64url('not json')}.${c.jwt.split('.')[2]}~`)),
    );
    variant('not a string', () => malformed(42 as unknown as string));
  });

  failureCode('unsupported_algorithm', (variant) => {
    const c = handCredential(w);
    const payload = credentialPayload(w, c.disclosures);
    const header = { typ: 'dc+sd-jwt', kid: `${ISSUER}#${w.issuer.kid}` };
    variant('alg "none" with an empty signature', () => {
      const jwt = jws({ ...header, alg: 'none' }, payload);
      assert.ok(jwt.endsWith('.'));
      assertFailure(verify(present(w, jwt, c.disclosures)), 'unsupported_algorithm');
    });
    variant('alg HS256 keyed with the public key', () => {
      const jwt = jws({ ...header, alg: 'HS256' }, payload, hs256(JSON.stringify(w.issuer.publicJwk)));
      assertFailure(verify(present(w, jwt, c.disclosures)), 'unsupported_algorithm');
    });
    variant('alg ES384 over a valid ES256 signature', () => {
      const jwt = jws({ ...header, alg: 'ES384' }, payload, es256By(w.issuer));
      assertFailure(verify(present(w, jwt, c.disclosures)), 'unsupported_algorithm');
    });
    variant('no alg at all', () => {
      const jwt = jws(header, payload, es256By(w.issuer));
      assertFailure(verify(present(w, jwt, c.disclosures)), 'unsupported_algorithm');
    });
  });

  failureCode('issuer_signature_invalid', (variant) => {
    const c = credential(w);
    const [header, payload, signature] = c.jwt.split('.') as [string, string, string];
    variant('one bit of the signature flipped', () => {
      const sig = Buffer.from(signature, 'base64url');
      sig[5] = (sig[5] ?? 0) ^ 0x01;
      const jwt = `${header}.${payload}.${sig.toString('base64url')}`;
      assertFailure(verify(present(w, jwt, disclosuresOf(c))), 'issuer_signature_invalid');
    });
    variant('the payload changed after signing (iat moved)', () => {
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const jwt = `${header}.${encodeJson({ ...decoded, iat: NOW - 60 })}.${signature}`;
      assertFailure(verify(present(w, jwt, disclosuresOf(c))), 'issuer_signature_invalid');
    });
    variant('a signature of the issuer over another credential', () => {
      const other = credential(w).jwt.split('.')[2] as string;
      const jwt = `${header}.${payload}.${other}`;
      assertFailure(verify(present(w, jwt, disclosuresOf(c))), 'issuer_signature_invalid');
    });
    variant('a truncated signature', () => {
      const jwt = `${header}.${payload}.${signature.slice(0, 40)}`;
      assertFailure(verify(present(w, jwt, disclosuresOf(c))), 'issuer_signature_invalid');
    });
  });

  failureCode('issuer_key_unknown', (variant) => {
    variant('signed by a key that is not in the DID document', () => {
      const c = credential(w, { signer: w.stranger, kid: `${ISSUER}#${w.stranger.kid}` });
      const r = verify(presentAll(w, c));
      assertFailure(r, 'issuer_key_unknown');
      assert.equal(r.ledger.find((e) => e.check === 'issuer_signature')?.status, 'not_performed', show(r));
    });
    variant('no kid in the header', () => {
      const c = handCredential(w, {}, { kid: undefined });
      assertFailure(verify(present(w, c.jwt, c.disclosures)), 'issuer_key_unknown');
    });
    variant('the key is in the document for authentication only, not assertionMethod', () => {
      const didDocument = buildDidDocument(ISSUER, {
        assertion: [{ kid: w.stranger.kid, publicJwk: w.stranger.publicJwk }],
        authentication: [{ kid: w.issuer.kid, publicJwk: w.issuer.publicJwk }],
      });
      const r = verify(presentAll(w, credential(w)), { didDocument, statusList: statusList(w, { signer: w.stranger }) });
      assertFailure(r, 'issuer_key_unknown');
    });
  });

  failureCode('did_document_not_bound', (variant) => {
    variant("the document of another DID, holding the signing key, for the credential's iss", () => {
      const c = credential(w, { kid: `${OTHER_ISSUER}#${w.issuer.kid}` });
      const didDocument = buildDidDocument(OTHER_ISSUER, { assertion: [{ kid: w.issuer.kid, publicJwk: w.issuer.publicJwk }] });
      const r = verify(presentAll(w, c), { didDocument });
      assertFailure(r, 'did_document_not_bound');
      assert.equal(r.ledger.find((e) => e.check === 'issuer_signature')?.status, 'passed', show(r));
    });
    variant("a document whose id is the iss but whose key is another DID's method", () => {
      const foreign = `${OTHER_ISSUER}#${w.issuer.kid}`;
      const didDocument = {
        ...buildDidDocument(OTHER_ISSUER, { assertion: [{ kid: w.issuer.kid, publicJwk: w.issuer.publicJwk }] }),
        id: ISSUER,
      };
      const c = credential(w, { kid: foreign });
      const list = handStatusList(w, { header: { kid: foreign } });
      assertFailure(verify(presentAll(w, c), { didDocument, statusList: list }), 'did_document_not_bound');
    });
  });

  failureCode('wrong_credential_format', (variant) => {
    for (const typ of ['vc+sd-jwt', 'JWT', undefined]) {
      variant(`typ ${JSON.stringify(typ)}`, () => {
        const c = credential(w, { header: { typ } });
        assertFailure(verify(presentAll(w, c)), 'wrong_credential_format');
      });
    }
  });

  failureCode('wrong_credential_type', (variant) => {
    variant('a sound credential of another vct', () => {
      const c = credential(w, { vct: `${VCT}-visitor` });
      assertFailure(verify(presentAll(w, c)), 'wrong_credential_type');
    });
    variant('no vct at all', () => {
      const c = handCredential(w, { vct: undefined });
      assertFailure(verify(present(w, c.jwt, c.disclosures)), 'wrong_credential_type');
    });
  });

  failureCode('unsupported_hash_algorithm', (variant) => {
    for (const alg of ['sha-512', 'SHA-256']) {
      variant(`_sd_alg ${alg}`, () => {
        const ds = Object.entries(CLAIMS).map(([name, value]) => disclosure(name, value));
        const hash = alg === 'sha-512' ? 'sha512' : 'sha256';
        const sd = ds.map((d) => createHash(hash).update(d, 'ascii').digest('base64url')).sort();
        const jwt = signCredential(w, credentialPayload(w, ds, { _sd: sd, _sd_alg: alg }));
        // No disclosure can be trusted, so the required claims are not there either.
        assertFailure(verify(present(w, jwt, ds)), 'unsupported_hash_algorithm', ['required_claims']);
      });
    }
  });

  failureCode('malformed_disclosure', (variant) => {
    for (const name of ['_sd', '...', 'vct', 'cnf', 'iss', 'status', 'exp', 'nbf', '_sd_alg', 'vct#integrity', 'aka_vcts']) {
      variant(`a referenced disclosure naming "${name}"`, () => {
        assertFailure(verify(withExtraDisclosures([disclosure(name, 'x')])), 'malformed_disclosure');
      });
    }
    variant('a disclosure naming a plaintext claim', () => {
      const presentation = withExtraDisclosures([disclosure('nickname', 'Bob')], { nickname: 'Ada' });
      assertFailure(verify(presentation), 'malformed_disclosure');
    });
    variant('a disclosure naming iat, which is present in plaintext', () => {
      assertFailure(verify(withExtraDisclosures([disclosure('iat', NOW)])), 'malformed_disclosure');
    });
    variant('a second disclosure of an already disclosed name', () => {
      assertFailure(verify(withExtraDisclosures([disclosure('given_name', 'Eve')])), 'malformed_disclosure');
    });
    variant('a disclosure that is an object, not an array', () => {
      assertFailure(
        verify(withExtraDisclosures([rawDisclosure({ salt: 's', name: 'nickname', value: 'x' })])),
        'malformed_disclosure',
      );
    });
    variant('a disclosure whose salt is not a string', () => {
      assertFailure(verify(withExtraDisclosures([rawDisclosure([1234, 'nickname', 'x'])])), 'malformed_disclosure');
    });
    variant('a disclosure whose name is not a string', () => {
      assertFailure(verify(withExtraDisclosures([rawDisclosure([b64url(random(16)), 7, 'x'])])), 'malformed_disclosure');
    });
    variant('a disclosure of four elements', () => {
      assertFailure(verify(withExtraDisclosures([rawDisclosure([b64url(random(16)), 'a', 'b', 'c'])])), 'malformed_disclosure');
    });
    variant('a disclosure that is not base64url JSON', () => {
      assertFailure(verify(withExtraDisclosures([b64url('not json at all')])), 'malformed_disclosure');
      assertFailure(verify(withExtraDisclosures(['not*base64url'])), 'malformed_disclosure');
    });
  });

  failureCode('unreferenced_disclosure', (variant) => {
    const c = credential(w);
    variant('a forged family_name disclosure replaces the real one', () => {
      const ds = disclosuresOf(c, ['given_name', 'member_number', 'age_over_18']);
      assertFailure(verify(present(w, c.jwt, [...ds, disclosure('family_name', 'Byron')])), 'unreferenced_disclosure');
    });
    variant('a real disclosure re-encoded with other whitespace', () => {
      const original = disclosuresOf(c, ['family_name'])[0] as string;
      const parts = JSON.parse(Buffer.from(original, 'base64url').toString('utf8')) as unknown[];
      const respaced = Buffer.from(JSON.stringify(parts, null, 1), 'utf8').toString('base64url');
      const ds = [...disclosuresOf(c, ['given_name', 'member_number', 'age_over_18']), respaced];
      assertFailure(verify(present(w, c.jwt, ds)), 'unreferenced_disclosure');
    });
    variant('a disclosure of another credential of the same issuer', () => {
      const other = disclosuresOf(credential(w, { claims: { nickname: 'Ada' } }), ['nickname']);
      assertFailure(verify(present(w, c.jwt, [...disclosuresOf(c), ...other])), 'unreferenced_disclosure');
    });
  });

  failureCode('duplicate_digest', (variant) => {
    variant('a digest listed twice in _sd', () => {
      const ds = Object.entries(CLAIMS).map(([name, value]) => disclosure(name, value));
      const digests = ds.map(sdDigest);
      const jwt = signCredential(w, credentialPayload(w, ds, { _sd: [...digests, digests[0]] }));
      // Refused before any disclosure is read, so the required claims are not there either.
      assertFailure(verify(present(w, jwt, ds)), 'duplicate_digest', ['required_claims']);
    });
    variant('the same disclosure presented twice', () => {
      const c = credential(w);
      const ds = disclosuresOf(c);
      assertFailure(verify(present(w, c.jwt, [...ds, ds[0] as string])), 'duplicate_digest');
    });
  });

  failureCode('unsupported_disclosure_structure', (variant) => {
    variant('a nested _sd in a plaintext object claim', () => {
      const street = disclosure('street', 'Main St 1');
      const presentation = withExtraDisclosures([], { address: { _sd: [sdDigest(street)], country: 'BE' } });
      assertFailure(verify(presentation), 'unsupported_disclosure_structure', ['required_claims']);
    });
    variant('{"...": digest} array elements in the payload', () => {
      const element = rawDisclosure([b64url(random(16)), 'FR']);
      const presentation = withExtraDisclosures([], { nationalities: [{ '...': sdDigest(element) }, 'BE'] });
      assertFailure(verify(presentation), 'unsupported_disclosure_structure', ['required_claims']);
    });
    variant('a two-element (array element) disclosure presented', () => {
      assertFailure(
        verify(withExtraDisclosures([rawDisclosure([b64url(random(16)), 'FR'])])),
        'unsupported_disclosure_structure',
      );
    });
    variant('a disclosed object value carrying its own _sd', () => {
      const address = disclosure('address', { _sd: [sdDigest(disclosure('street', 'x'))] });
      assertFailure(verify(withExtraDisclosures([address])), 'unsupported_disclosure_structure');
    });
    variant('_sd that is not an array of strings', () => {
      const presentation = withExtraDisclosures([], { _sd: 'not-an-array' });
      assertFailure(verify(presentation), 'unsupported_disclosure_structure', ['required_claims']);
    });
  });

  failureCode('holder_key_missing', (variant) => {
    const cases: Array<[string, unknown]> = [
      ['no cnf', undefined],
      ['cnf with an Ed25519 jwk', { jwk: { kty: 'OKP', crv: 'Ed25519', x: b64url(random(16)) } }],
      ['cnf with a kid only', { kid: 'holder-key-1' }],
      ['cnf.jwk of P-384', { jwk: { ...w.holder.publicJwk, crv: 'P-384' } }],
    ];
    for (const [name, cnf] of cases) {
      variant(name, () => {
        const c = handCredential(w, { cnf });
        assertFailure(verify(present(w, c.jwt, c.disclosures)), 'holder_key_missing');
      });
    }
  });

  failureCode('key_binding_missing', (variant) => {
    variant('the presentation ends with "~" (an SD-JWT without KB-JWT)', () => {
      const c = credential(w);
      const sdJwt = `${[c.jwt, ...disclosuresOf(c)].join('~')}~`;
      const r = verify(sdJwt);
      assertFailure(r, 'key_binding_missing');
      for (const check of ['audience', 'freshness'] as const) {
        assert.equal(r.ledger.find((e) => e.check === check)?.status, 'not_performed', show(r));
      }
      assert.equal(r.keyBinding, null);
    });
  });

  failureCode('key_binding_invalid', (variant) => {
    const c = credential(w);
    const sdJwt = `${[c.jwt, ...disclosuresOf(c)].join('~')}~`;
    variant('signed by another key than cnf.jwk (a stolen credential)', () => {
      assertFailure(verify(presentAll(w, c, { signer: w.stranger })), 'key_binding_invalid');
    });
    variant('typ "JWT"', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { header: { typ: 'JWT' } })), 'key_binding_invalid');
    });
    variant('no typ', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { header: { typ: undefined } })), 'key_binding_invalid');
    });
    variant('alg HS256', () => {
      const r = verify(handKeyBinding(w, sdJwt, { header: { alg: 'HS256' }, signer: hs256('shared') }));
      assertFailure(r, 'key_binding_invalid');
    });
    variant('alg "none" without a signature', () => {
      const r = verify(handKeyBinding(w, sdJwt, { header: { alg: 'none' }, signer: () => Buffer.alloc(0) }));
      assertFailure(r, 'key_binding_invalid');
    });
    variant('alg ES384 over a valid ES256 signature of the holder', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { header: { alg: 'ES384' } })), 'key_binding_invalid');
    });
  });

  failureCode('sd_hash_mismatch', (variant) => {
    const c = credential(w);
    const all = disclosuresOf(c);
    const three = disclosuresOf(c, ['given_name', 'member_number', 'age_over_18']);
    variant('a disclosure removed after the holder signed', () => {
      const sound = presentAll(w, c);
      const kb = sound.slice(sound.lastIndexOf('~') + 1);
      assertFailure(verify(`${[c.jwt, ...three].join('~')}~${kb}`), 'sd_hash_mismatch');
    });
    variant('a disclosure added after the holder signed', () => {
      const bound = present(w, c.jwt, three);
      const kb = bound.slice(bound.lastIndexOf('~') + 1);
      assertFailure(verify(`${[c.jwt, ...all].join('~')}~${kb}`), 'sd_hash_mismatch');
    });
    variant('sd_hash over the issuer JWT alone', () => {
      const sdJwt = `${[c.jwt, ...all].join('~')}~`;
      const r = verify(handKeyBinding(w, sdJwt, { payload: { sd_hash: sdDigest(`${c.jwt}~`) } }));
      assertFailure(r, 'sd_hash_mismatch');
    });
    variant('no sd_hash', () => {
      const sdJwt = `${[c.jwt, ...all].join('~')}~`;
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { sd_hash: undefined } })), 'sd_hash_mismatch');
    });
  });

  failureCode('audience_mismatch', (variant) => {
    const c = credential(w);
    const sdJwt = `${[c.jwt, ...disclosuresOf(c)].join('~')}~`;
    variant('another verifier', () => {
      assertFailure(verify(presentAll(w, c, { aud: `${AUD}.elsewhere` })), 'audience_mismatch');
    });
    variant('the audience as an array (RFC 9901 wants a single string)', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { aud: [AUD] } })), 'audience_mismatch');
    });
    variant('no aud', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { aud: undefined } })), 'audience_mismatch');
    });
  });

  failureCode('nonce_mismatch', (variant) => {
    const c = credential(w);
    const sdJwt = `${[c.jwt, ...disclosuresOf(c)].join('~')}~`;
    variant('the nonce of an earlier transaction', () => {
      assertFailure(verify(presentAll(w, c, { nonce: b64url(random(16)) })), 'nonce_mismatch');
    });
    variant('no nonce', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { nonce: undefined } })), 'nonce_mismatch');
    });
  });

  failureCode('key_binding_not_fresh', (variant) => {
    const c = credential(w);
    const sdJwt = `${[c.jwt, ...disclosuresOf(c)].join('~')}~`;
    variant('iat a year in the past', () => {
      assertFailure(verify(presentAll(w, c, { iat: NOW - YEAR })), 'key_binding_not_fresh');
    });
    variant('iat a year in the future', () => {
      assertFailure(verify(presentAll(w, c, { iat: NOW + YEAR })), 'key_binding_not_fresh');
    });
    variant('no iat', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { iat: undefined } })), 'key_binding_not_fresh');
    });
    variant('iat as a string', () => {
      assertFailure(verify(handKeyBinding(w, sdJwt, { payload: { iat: String(NOW) } })), 'key_binding_not_fresh');
    });
  });

  failureCode('credential_outside_validity', (variant) => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['exp an hour ago', { exp: NOW - 3600 }],
      ['nbf an hour ahead', { nbf: NOW + 3600 }],
      ['exp that is not a number', { exp: String(NOW + 3600) }],
    ];
    for (const [name, over] of cases) {
      variant(name, () => {
        const c = handCredential(w, over);
        assertFailure(verify(present(w, c.jwt, c.disclosures)), 'credential_outside_validity');
      });
    }
  });

  failureCode('required_claim_missing', (variant) => {
    const c = credential(w);
    variant('a required claim withheld by the holder', () => {
      const ds = disclosuresOf(c, ['given_name', 'family_name', 'age_over_18']);
      assertFailure(verify(present(w, c.jwt, ds)), 'required_claim_missing');
    });
    variant('a required claim the credential never had', () => {
      const r = verify(presentAll(w, c), { expected: { claims: ['given_name', 'date_of_birth'] } });
      assertFailure(r, 'required_claim_missing');
    });
  });

  failureCode('status_unavailable', (variant) => {
    variant('the credential has no status claim (a list is supplied)', () => {
      const c = handCredential(w, { status: undefined });
      assertFailure(verify(present(w, c.jwt, c.disclosures)), 'status_unavailable');
    });
    variant('the credential has no status claim and no list is supplied', () => {
      const c = handCredential(w, { status: undefined });
      assertFailure(verify(present(w, c.jwt, c.disclosures), { statusList: null }), 'status_unavailable');
    });
    variant('the credential names a list and none is supplied', () => {
      assertFailure(verify(presentAll(w, credential(w)), { statusList: null }), 'status_unavailable');
    });
  });

  failureCode('status_list_invalid', (variant) => {
    const c = credential(w);
    const presentation = presentAll(w, c);
    const invalid = (statusList: string, p = presentation) => assertFailure(verify(p, { statusList }), 'status_list_invalid');
    variant('typ "JWT"', () => invalid(handStatusList(w, { header: { typ: 'JWT' } })));
    variant('no typ', () => invalid(handStatusList(w, { header: { typ: undefined } })));
    variant('alg HS256', () =>
      invalid(handStatusList(w, { header: { alg: 'HS256' }, signer: hs256(JSON.stringify(w.issuer.publicJwk)) })),
    );
    variant('alg "none"', () => invalid(handStatusList(w, { header: { alg: 'none' }, signer: () => Buffer.alloc(0) })));
    variant('signed by a key that is not in the DID document', () => invalid(statusList(w, { signer: w.stranger })));
    variant("the issuer's kid over a signature by another key", () =>
      invalid(handStatusList(w, { signer: es256By(w.stranger) })),
    );
    variant('iss of another issuer', () => invalid(statusList(w, { iss: OTHER_ISSUER })));
    variant('not a compact JWS', () => invalid('not.a-jws'));
    variant('the index past the end of the list (idx = size)', () => {
      const outside = credential(w, { status: { uri: LIST_URI, idx: LIST_SIZE } });
      invalid(statusList(w), presentAll(w, outside));
    });
    variant('the index past the end of a 2-bit list (its entries are half its bits)', () => {
      // LIST_SIZE entries of 2 bits: idx LIST_SIZE is one past the end, within the bytes' bit count.
      const outside = credential(w, { status: { uri: LIST_URI, idx: LIST_SIZE } });
      invalid(handStatusList(w, { bits: 2 }), presentAll(w, outside));
    });
    variant('the index far past the end of the list (idx = 10 * size)', () => {
      const outside = credential(w, { status: { uri: LIST_URI, idx: 10 * LIST_SIZE } });
      invalid(statusList(w), presentAll(w, outside));
    });
    variant('lst is not zlib (random bytes)', () => invalid(handStatusList(w, { lst: b64url(random(16)) })));
    variant('lst is raw DEFLATE without the zlib container', () =>
      invalid(handStatusList(w, { lst: deflateRawSync(new Uint8Array(LIST_SIZE / 8)).toString('base64url') })),
    );
    variant('lst is gzip', () =>
      invalid(handStatusList(w, { lst: gzipSync(new Uint8Array(LIST_SIZE / 8)).toString('base64url') })),
    );
    variant('bits 3', () => invalid(handStatusList(w, { bits: 3 })));
    variant('no status_list in the token', () => invalid(handStatusList(w, { payload: { status_list: undefined } })));
    const badReferences: Array<[string, unknown]> = [
      ['a status claim without idx', { status_list: { uri: LIST_URI } }],
      ['a status claim without uri', { status_list: { idx: w.idx } }],
      ['a negative idx', { status_list: { idx: -1, uri: LIST_URI } }],
      ['a string idx', { status_list: { idx: String(w.idx), uri: LIST_URI } }],
      ['a fractional idx', { status_list: { idx: w.idx + 0.5, uri: LIST_URI } }],
      ['a status claim that is not an object', 'valid'],
    ];
    for (const [name, status] of badReferences) {
      variant(name, () => {
        const bad = handCredential(w, { status });
        invalid(statusList(w), present(w, bad.jwt, bad.disclosures));
      });
    }
  });

  failureCode('status_list_mismatch', (variant) => {
    const presentation = presentAll(w, credential(w));
    variant('a sound list of the issuer for another URI', () => {
      const r = verify(presentation, { statusList: statusList(w, { sub: `${LIST_URI}-2` }) });
      assertFailure(r, 'status_list_mismatch');
    });
    variant('a list without sub', () => {
      const r = verify(presentation, { statusList: handStatusList(w, { payload: { sub: undefined } }) });
      assertFailure(r, 'status_list_mismatch');
    });
  });

  failureCode('status_list_expired', (variant) => {
    const presentation = presentAll(w, credential(w));
    variant('exp an hour ago', () => {
      const r = verify(presentation, { statusList: statusList(w, { iat: NOW - 7200, exp: NOW - 3600 }) });
      assertFailure(r, 'status_list_expired');
    });
    variant('exp that is not a number', () => {
      const r = verify(presentation, { statusList: handStatusList(w, { payload: { exp: String(NOW + 3600) } }) });
      assertFailure(r, 'status_list_expired');
    });
  });

  failureCode('credential_revoked', (variant) => {
    const presentation = presentAll(w, credential(w));
    variant('the bit is set (INVALID, 1 bit)', () => {
      const r = verify(presentation, { statusList: statusList(w, { revoked: [w.idx] }) });
      assertFailure(r, 'credential_revoked');
    });
    variant('SUSPENDED: value 2 in a 2-bit list', () => {
      const list = handStatusList(w, { bits: 2, entries: [[w.idx, 2]] });
      assertFailure(verify(presentation, { statusList: list }), 'credential_revoked');
    });
    variant('an application-specific value 3 in an 8-bit list', () => {
      const list = handStatusList(w, { bits: 8, entries: [[w.idx, 3]] });
      assertFailure(verify(presentation, { statusList: list }), 'credential_revoked');
    });
  });
});

describe('clock boundaries (KB_MAX_AGE_S, CLOCK_SKEW_S)', () => {
  const c = credential(w);
  const atKbIat = (iat: number) => verify(presentAll(w, c, { iat }));
  const withValidity = (over: Record<string, unknown>) => {
    const hand = handCredential(w, over);
    return verify(present(w, hand.jwt, hand.disclosures));
  };

  it(`a KB-JWT iat exactly KB_MAX_AGE_S (${KB_MAX_AGE_S}s) old passes, one second older fails`, () => {
    assertAccept(atKbIat(NOW - KB_MAX_AGE_S));
    assertFailure(atKbIat(NOW - KB_MAX_AGE_S - 1), 'key_binding_not_fresh');
  });
  it(`a KB-JWT iat CLOCK_SKEW_S (${CLOCK_SKEW_S}s) ahead passes, one second further fails`, () => {
    assertAccept(atKbIat(NOW + CLOCK_SKEW_S));
    assertFailure(atKbIat(NOW + CLOCK_SKEW_S + 1), 'key_binding_not_fresh');
  });
  it('a credential exp is honoured up to CLOCK_SKEW_S after it (exp + skew <= now is expired)', () => {
    assertAccept(withValidity({ exp: NOW - CLOCK_SKEW_S + 1 }));
    assertFailure(withValidity({ exp: NOW - CLOCK_SKEW_S }), 'credential_outside_validity');
  });
  it('a credential nbf is honoured up to CLOCK_SKEW_S before it', () => {
    assertAccept(withValidity({ nbf: NOW + CLOCK_SKEW_S }));
    assertFailure(withValidity({ nbf: NOW + CLOCK_SKEW_S + 1 }), 'credential_outside_validity');
  });
  it('a status list exp gets the same skew as the credential exp', () => {
    const presentation = presentAll(w, c);
    assertAccept(verify(presentation, { statusList: statusList(w, { exp: NOW - CLOCK_SKEW_S + 1 }) }));
    assertFailure(verify(presentation, { statusList: statusList(w, { exp: NOW - CLOCK_SKEW_S }) }), 'status_list_expired');
  });
  it('the clock is input.now, not the wall clock', () => {
    const input: VerificationInput = inputOf(w, presentAll(w, c));
    assertAccept(verifyPresentation(input));
    assertFailure(verifyPresentation({ ...input, now: NOW + KB_MAX_AGE_S + 10 }), 'key_binding_not_fresh');
  });
});

/** Found while these tests were written, fixed since; each states what the standards ask for. */
describe('standards details', () => {
  const presentation = presentAll(w, credential(w));
  it('a status list token without iat (REQUIRED, draft-ietf-oauth-status-list) is not accepted', () => {
    const r = verify(presentation, { statusList: handStatusList(w, { payload: { iat: undefined } }) });
    assertFailure(r, 'status_list_invalid');
  });
  it('a status list token whose nbf is a day ahead is not accepted (RFC 7519 §4.1.5)', () => {
    const r = verify(presentation, { statusList: handStatusList(w, { payload: { nbf: NOW + 86_400 } }) });
    assert.notEqual(r.verdict, 'accept', show(r));
  });
  it('an issuer JWT with a crit header parameter the verifier does not understand is not accepted (RFC 7515 §4.1.11)', () => {
    const c = credential(w, { header: { crit: ['urn:example:must-understand'], 'urn:example:must-understand': true } });
    assert.notEqual(verify(presentAll(w, c)).verdict, 'accept');
  });
  it('a claim or disclosure named __proto__ does not replace the prototype of the returned claims', () => {
    const good = Object.entries(CLAIMS).map(([name, value]) => disclosure(name, value));
    const proto = rawDisclosure([b64url(random(16)), '__proto__', { isAdmin: true }]);
    const jwt = signCredential(w, credentialPayload(w, [...good, proto]));
    const r = verify(present(w, jwt, [...good, proto]));
    if (r.claims !== null) {
      assert.equal(Object.getPrototypeOf(r.claims), Object.prototype, show(r));
      assert.equal((r.claims as Record<string, unknown>).isAdmin, undefined);
    }
  });
});

describe('coverage', () => {
  it('every failure code in FAILURE_CODES has a test in this file, and only those', () => {
    const codes = Object.keys(FAILURE_CODES) as FailureCode[];
    assert.equal(codes.length, 26);
    const missing = codes.filter((code) => !covered.get(code));
    assert.deepEqual(missing, [], `failure codes without a test: ${missing.join(', ')}`);
    assert.deepEqual([...covered.keys()].sort(), [...codes].sort());
    for (const code of codes) assert.ok(CHECKS.includes(FAILURE_CHECK[code]), code);
  });
});
