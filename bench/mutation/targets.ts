/**
 * The mutation targets of `npm run mutation -- <target>` (bench/README.md, "Mutation"): the
 * trust-critical files, each with the few test files that exercise it, so that one target runs in
 * minutes. A surviving mutant that no test can kill, because the program behaves the same with it,
 * is written down here, one line each with the reason; nothing else is left out of the score but
 * message strings (bench/mutation/score.ts).
 */
export interface Target {
  /** What the target covers, in words. */
  about: string;
  /** The files Stryker mutates (paths from the repository root), whole. */
  mutate?: string[];
  /**
   * Parts of files, each from the line holding a text (a method, a statement constant) to the
   * line closing it: Stryker mutates them, and each SQL condition in them is removed in turn
   * (bench/mutation/sql-conditions.ts).
   */
  regions?: Region[];
  /** The test files run against each mutant. */
  tests: string[];
  /** Whether the tests need PostgreSQL too (TEST_DATABASE_URL passed through when set). */
  postgres?: boolean;
  /**
   * Provably equivalent mutants: `<file>:<line>:<mutator>:<replacement>` → why the program behaves
   * the same with it.
   */
  equivalent?: Record<string, string>;
}

import type { Region } from './sql-conditions.ts';

export const TARGETS: Record<string, Target> = {
  verifier: {
    about: 'the reference verifier: the ten-check ledger, disclosures, key binding, DID keys, revocation',
    mutate: ['src/core/verifier/*.ts', '!src/core/verifier/*.test.ts'],
    tests: [
      'src/core/verifier/ledger.test.ts',
      'src/core/verifier/failure-codes.test.ts',
      'src/core/verifier/revocation-cache.test.ts',
      'src/core/verifier/guards.test.ts',
      'src/core/verifier/did-keys.test.ts',
      'src/core/verifier/input.test.ts',
    ],
    equivalent: {
      'src/core/verifier/verify-presentation.ts:117:StringLiteral:""':
        "sd_hash over Buffer.from(text, ''), UTF-8: the same bytes as ASCII, since a presentation outside printable ASCII is refused first",
      'src/core/verifier/revocation.ts:179:BlockStatement:{}':
        "inflateList's catch emptied: the function then ends without a return, which is the same undefined the block returns",
      'src/core/verifier/did-keys.ts:26:ArrayDeclaration:["Stryker was here"]':
        'the fallback for a document without verificationMethod: its one element is a string, and a method is only found among objects (isObject)',
    },
  },
  jws: {
    about: 'the key-bound JWS verifier, the holder plane and the c_nonce',
    mutate: ['src/core/jose/key-bound-jws.ts', 'src/http/auth/holder-jws.ts', 'src/adapters/crypto/c-nonce.ts'],
    tests: ['src/core/jose/key-bound-jws.test.ts', 'src/http/auth/holder-jws.test.ts', 'src/adapters/crypto/c-nonce.test.ts'],
    equivalent: Object.fromEntries([
      ...[
        'ConditionalExpression:false',
        'LogicalOperator:!/^[A-Za-z0-9_-]{22}$/.test(random) && !/^[1-9a-z][0-9a-z]{0,9}$/.test(expiry)',
        'Regex:/[A-Za-z0-9_-]{22}$/',
        'Regex:/^[A-Za-z0-9_-]{22}/',
        'Regex:/[1-9a-z][0-9a-z]{0,9}$/',
        'Regex:/^[1-9a-z][0-9a-z]{0,9}/',
      ].map((m) => [
        `src/adapters/crypto/c-nonce.ts:29:${m}`,
        'the shape of the random part and the expiry, loosened: any text but the minted one is another MAC input, and the MAC is compared whole (the MAC part keeps its exact length check, which the tests kill)',
      ]),
      ...[32, 33].map((line) => [
        `src/adapters/crypto/c-nonce.ts:${line}:StringLiteral:""`,
        "Buffer.from(text, '') is UTF-8, the same bytes as ASCII for the base64url text the shape check admits",
      ]),
    ]),
  },
  spends: {
    about: 'every single-use spend: the conditional write of each, and each SQL condition in it',
    regions: [
      { file: 'src/adapters/sql/offers/offers-statements.ts', within: ['const spendCode =', 'const eraseSubject ='] },
      { file: 'src/adapters/sql/offers/sql-offer-store.ts', within: ['async claimTxAttempt('] },
      {
        file: 'src/adapters/sql/issuance/sql-access-token-store.ts',
        within: ['const usable =', 'async redeem(', 'async findUsable('],
      },
      {
        file: 'src/adapters/sql/issuance/sql-issued-credential-store.ts',
        within: ['const spendNonce =', 'const spendToken =', 'async collect<T>('],
      },
      { file: 'src/adapters/sql/account/sql-account-session-store.ts', within: ['async approve(', 'async spend('] },
      { file: 'src/adapters/sql/onboarding/sql-onboarding-store.ts', within: ['async countAttempt(', 'async spend('] },
      { file: 'src/adapters/sql/approvals/sql-approval-store.ts', within: ['async decide('] },
      { file: 'src/adapters/sql/membership/sql-membership-store.ts', within: ['async castVote('] },
      {
        file: 'src/adapters/sql/verification/sql-presentation-transaction-store.ts',
        within: ['const completeOnce =', 'async complete('],
      },
      { file: 'src/adapters/sql/verification/verification-statements.ts', within: ['export async function spendForEnrolment('] },
    ],
    tests: ['test/storage/single-use-spends.test.ts'],
    postgres: true,
  },
  policy: {
    about: 'the route policy and the tenant scope',
    mutate: ['src/http/route-policy.ts', 'src/http/auth/scope.ts'],
    tests: ['src/http/route-policy.test.ts', 'src/http/auth/scope.test.ts'],
    equivalent: {
      'src/http/route-policy.ts:78:ArrayDeclaration:["Stryker was here"]':
        'reached only by a route without roles, and no principal holds the role "Stryker was here": no role admits either way',
    },
  },
};
