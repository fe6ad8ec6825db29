// The verification bench in process: the reference verifier against the peer, one thread, on the same presentations.
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { newP256KeyPair } from '../src/adapters/crypto/p256-keys.ts';
import { bindPresentation } from '../src/core/conformance/builders.ts';
import { type VerificationInput, type VerificationResult, verifyPresentation } from '../src/core/verifier/verify-presentation.ts';
import { coresOf, cpuWindow } from './lib/cpu-window.ts';
import type { CryptoRates } from './lib/crypto-rates.ts';
import { fixed, median } from './lib/stats.ts';

import { COLD_PEER_CHECKED, COLD_POOL_SIZE, type Options, POOL_SIZE, TARGET_RATIO } from './verify-options.ts';
import { PEER_CHECKS, type PeerVerifier, peerVerifier, REFERENCE_CHECKS } from './verify-peer.ts';
import { AUD, mintPool, type Pool, type PoolEntry } from './verify-pool.ts';

interface Window {
  ops: number;
  ok: number;
  seconds: number;
}

/** The sound verdict without a status list: every check passes but revocation, which is not performed. */
const soundWithoutStatus = (r: VerificationResult) =>
  r.verdict === 'indeterminate' &&
  r.failure === 'status_unavailable' &&
  r.ledger.every((e) => (e.check === 'revocation' ? e.status === 'not_performed' : e.status === 'passed'));

const accepted = (r: VerificationResult) => r.verdict === 'accept';

/** The reference verifier in a synchronous loop over the pool for about `ms`; `ok` counts the verdicts `sound` approves. */
function referenceWindow(inputs: VerificationInput[], ms: number, sound = accepted): Window {
  let ops = 0;
  let ok = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 8; k++) {
      if (sound(verifyPresentation(inputs[ops % inputs.length] as VerificationInput))) ok++;
      ops++;
    }
    now = performance.now();
  }
  return { ops, ok, seconds: (now - start) / 1000 };
}

/** The peer, one presentation after another (awaited), for about `ms`. */
async function peerWindow(peer: PeerVerifier, inputs: VerificationInput[], ms: number): Promise<Window> {
  let ops = 0;
  let ok = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 8; k++) {
      if (await peer.verify(inputs[ops % inputs.length] as VerificationInput)) ok++;
      ops++;
    }
    now = performance.now();
  }
  return { ops, ok, seconds: (now - start) / 1000 };
}

/** @sd-jwt/jwt-status-list's decode of the list token, as the peer runs it for every presentation. */
function decodeWindow(token: string, ms: number): Window {
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    getListFromStatusListJWT(token).getStatus(0);
    ops++;
    now = performance.now();
  }
  return { ops, ok: ops, seconds: (now - start) / 1000 };
}

interface Variant {
  id: string;
  label: string;
  pool: number;
  /** ES256 verifications one presentation needs (its ceiling is verify_rate / this); 0: not a presentation. */
  verifies: 0 | 2 | 3;
  run: (ms: number) => Window | Promise<Window>;
}

export interface VariantResult {
  id: string;
  label: string;
  pool: number;
  /** Median of the windows' rates, presentations per second. */
  perSec: number;
  minPerSec: number;
  maxPerSec: number;
  windows: number[];
  ops: number;
  /** Presentations not accepted inside the timed windows (must be 0). */
  notAccepted: number;
  verifies: number;
  /** perSec against verify_rate / verifies (null for the decode-only row). */
  ceilingFraction: number | null;
}

/** Every variant warmed up, then `windows` rounds, each variant once per round in a rotating order. */
async function measureVariants(variants: Variant[], opts: Options, verifyPerSec: number, log: (l: string) => void) {
  for (const v of variants) await v.run(opts.warmupS * 1000);
  const perWindowMs = (opts.durationS * 1000) / opts.windows;
  const windows = new Map<string, Window[]>(variants.map((v) => [v.id, []]));
  for (let round = 0; round < opts.windows; round++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + round) % variants.length] as Variant;
      windows.get(v.id)?.push(await v.run(perWindowMs));
    }
  }
  return variants.map((v): VariantResult => {
    const ws = windows.get(v.id) ?? [];
    const rates = ws.map((w) => w.ops / w.seconds);
    const ops = ws.reduce((n, w) => n + w.ops, 0);
    const notAccepted = ws.reduce((n, w) => n + (w.ops - w.ok), 0);
    const perSec = median(rates);
    if (notAccepted > 0) log(`  ${v.label}: ${notAccepted} of ${ops} presentations NOT accepted inside the timed loop`);
    return {
      id: v.id,
      label: v.label,
      pool: v.pool,
      perSec,
      minPerSec: Math.min(...rates),
      maxPerSec: Math.max(...rates),
      windows: rates,
      ops,
      notAccepted,
      verifies: v.verifies,
      ceilingFraction: v.verifies === 0 ? null : perSec / (verifyPerSec / v.verifies),
    };
  });
}

/** Outside the timed loops: every presentation is accepted by the reference verifier and by each peer. */
async function checkAccepted(entries: PoolEntry[], peers: Array<[string, PeerVerifier]>): Promise<void> {
  const problems: string[] = [];
  for (const [i, e] of entries.entries()) {
    const r = verifyPresentation(e.input);
    if (r.verdict !== 'accept') problems.push(`#${i} reference: ${r.verdict} ${r.failure}`);
    for (const [name, peer] of peers) {
      const reason = await peer.reason(e.input);
      if (reason !== undefined) problems.push(`#${i} ${name}: ${reason}`);
    }
    if (problems.length > 5) break;
  }
  if (problems.length > 0) {
    throw new Error(`presentations of the pool are not all accepted (the bench measures success paths): ${problems.join('; ')}`);
  }
}

interface SanityCase {
  case: string;
  reference: string;
  peer: Record<string, string>;
}

/**
 * Outside the timed loops: both sides refuse a broken presentation for each link the timed path
 * relies on, so neither rate comes from a check that is not made.
 */
async function sanityCases(pool: Pool, peers: Array<[string, PeerVerifier]>): Promise<SanityCase[]> {
  const first = pool.entries[0];
  if (!first) return [];
  const { input, holder, idx } = first;
  const sdJwtOf = (p: string) => p.slice(0, p.lastIndexOf('~') + 1);
  const sdJwt = sdJwtOf(input.presentation);
  const bind = (s: string, signer = holder) =>
    bindPresentation(s, { signer, aud: AUD, nonce: input.expected.nonce, iat: pool.now - 5 });
  const jwtEnd = sdJwt.indexOf('~');
  const jwt = sdJwt.slice(0, jwtEnd);
  const signature = Buffer.from(jwt.slice(jwt.lastIndexOf('.') + 1), 'base64url');
  signature[10] = (signature[10] ?? 0) ^ 0x01;
  const tamperedJwt = `${jwt.slice(0, jwt.lastIndexOf('.') + 1)}${signature.toString('base64url')}`;
  const cases: Array<[string, VerificationInput]> = [
    ['issuer signature flipped (KB re-signed over it)', { ...input, presentation: bind(`${tamperedJwt}${sdJwt.slice(jwtEnd)}`) }],
    ['KB-JWT signed by another key', { ...input, presentation: bind(sdJwt, newP256KeyPair()) }],
    ['credential revoked in the status list', { ...input, statusList: pool.listRevoking([idx]) }],
    ['KB-JWT nonce of another transaction', { ...input, expected: { ...input.expected, nonce: 'another-transaction-nonce' } }],
  ];
  const out: SanityCase[] = [];
  for (const [name, i] of cases) {
    const r = verifyPresentation(i);
    const peer: Record<string, string> = {};
    for (const [label, p] of peers) peer[label] = (await p.reason(i)) ?? 'ACCEPTED';
    out.push({ case: name, reference: r.verdict === 'accept' ? 'ACCEPTED' : `${r.verdict} (${r.failure})`, peer });
  }
  return out;
}

export interface InProcessResult {
  poolSize: number;
  coldPoolSize: number;
  mintSeconds: number;
  variants: VariantResult[];
  ratio: number;
  coldRatio: number;
  webcryptoRatio: number;
  /** Without the status step on either side: the reference given no list against the peer with its status step removed. */
  noStatusRatio: number;
  met: boolean;
  sanity: SanityCase[];
  otherCores?: number;
  checks: { reference: string; peer: string };
}

export async function benchInProcess(opts: Options, crypto: CryptoRates, log: (l: string) => void): Promise<InProcessResult> {
  const t0 = performance.now();
  const pool = mintPool(POOL_SIZE);
  const cold = mintPool(COLD_POOL_SIZE);
  const mintSeconds = (performance.now() - t0) / 1000;
  log(`minted ${POOL_SIZE} + ${COLD_POOL_SIZE} presentations in ${fixed(mintSeconds, 1)} s`);
  const peerFast = peerVerifier('node-crypto');
  const peerWeb = peerVerifier('webcrypto');
  const peerNoStatus = peerVerifier('node-crypto', { status: false });
  const peerCold = peerVerifier('node-crypto');
  const t1 = performance.now();
  await checkAccepted(pool.entries, [
    ['peer (node:crypto)', peerFast],
    ['peer (WebCrypto)', peerWeb],
    ['peer (no status step)', peerNoStatus],
  ]);
  // The peer takes milliseconds a presentation: it is checked here on the first COLD_PEER_CHECKED of
  // the large pool, the reference on all of them; inside the timed loops every refusal is counted too.
  await checkAccepted(cold.entries, []);
  await checkAccepted(cold.entries.slice(0, COLD_PEER_CHECKED), [['peer (node:crypto)', peerCold]]);
  log(
    `checked outside the timed loops that every presentation is accepted (${fixed((performance.now() - t1) / 1000, 1)} s): ` +
      `${POOL_SIZE} by the reference and each peer variant, ${COLD_POOL_SIZE} by the reference, the first ${COLD_PEER_CHECKED} of them by the peer`,
  );
  const sanity = await sanityCases(pool, [
    ['node-crypto', peerFast],
    ['webcrypto', peerWeb],
  ]);
  for (const s of sanity) {
    const peers = Object.entries(s.peer).map(([k, v]) => `${k}: ${v}`);
    log(`  sanity, ${s.case}: reference ${s.reference}; peer ${peers.join('; ')}`);
  }
  const wronglyAccepted = sanity.filter((s) => s.reference === 'ACCEPTED' || Object.values(s.peer).includes('ACCEPTED'));
  if (wronglyAccepted.some((s) => Object.values(s.peer).includes('ACCEPTED'))) {
    throw new Error('the peer accepted a broken presentation: its callbacks do not check what the comparison assumes');
  }
  if (wronglyAccepted.length > 0) log('  THE REFERENCE VERIFIER ACCEPTED A BROKEN PRESENTATION (see above)');

  const inputs = pool.entries.map((e) => e.input);
  // Like for like with the peer's status step removed: no list supplied, so no list signature,
  // inflate or entry; the verdict is then indeterminate (status_unavailable) with every other check passed.
  const noListInputs = inputs.map(({ statusList: _, ...rest }) => rest);
  const unsound = noListInputs.filter((i) => !soundWithoutStatus(verifyPresentation(i)));
  if (unsound.length > 0) throw new Error(`${unsound.length} presentations without a list are not sound but for revocation`);
  const coldInputs = cold.entries.map((e) => e.input);
  const variants: Variant[] = [
    {
      id: 'reference',
      label: 'reference verifyPresentation (list verified once per token)',
      pool: POOL_SIZE,
      verifies: 3,
      run: (ms) => referenceWindow(inputs, ms),
    },
    {
      id: 'peer',
      label: 'peer sd-jwt-vc 0.19.0, node:crypto callbacks',
      pool: POOL_SIZE,
      verifies: 3,
      run: (ms) => peerWindow(peerFast, inputs, ms),
    },
    {
      id: 'peer-webcrypto',
      label: 'peer sd-jwt-vc 0.19.0, crypto-nodejs ES256 (WebCrypto)',
      pool: POOL_SIZE,
      verifies: 3,
      run: (ms) => peerWindow(peerWeb, inputs, ms),
    },
    {
      id: 'peer-no-status',
      label: 'peer node:crypto, its status step removed (does less)',
      pool: POOL_SIZE,
      verifies: 2,
      run: (ms) => peerWindow(peerNoStatus, inputs, ms),
    },
    {
      id: 'reference-no-status',
      label: 'reference, no status list supplied (does less)',
      pool: POOL_SIZE,
      verifies: 2,
      run: (ms) => referenceWindow(noListInputs, ms, soundWithoutStatus),
    },
    {
      id: 'peer-list-decode',
      label: "(decodes/s) the peer's list decode alone, getListFromStatusListJWT",
      pool: 1,
      verifies: 0,
      run: (ms) => decodeWindow(pool.statusList, ms),
    },
    {
      id: 'reference-cold',
      label: 'reference, a new holder key each time',
      pool: COLD_POOL_SIZE,
      verifies: 3,
      run: (ms) => referenceWindow(coldInputs, ms),
    },
    {
      id: 'peer-cold',
      label: 'peer node:crypto, a new holder key each time',
      pool: COLD_POOL_SIZE,
      verifies: 3,
      run: (ms) => peerWindow(peerCold, coldInputs, ms),
    },
  ];
  log(
    `measuring ${variants.length} variants: ${opts.warmupS} s warm-up each, then ${opts.windows} interleaved windows of ` +
      `${fixed(opts.durationS / opts.windows, 2)} s each (median reported)`,
  );
  const endWindow = cpuWindow();
  const wall0 = performance.now();
  const results = await measureVariants(variants, opts, crypto.verifyPerSec, log);
  const wallS = (performance.now() - wall0) / 1000;
  const { otherCores } = coresOf(endWindow(), wallS);
  const rate = (id: string) => results.find((r) => r.id === id)?.perSec ?? Number.NaN;
  const ratio = rate('reference') / rate('peer');
  return {
    poolSize: POOL_SIZE,
    coldPoolSize: COLD_POOL_SIZE,
    mintSeconds,
    variants: results,
    ratio,
    coldRatio: rate('reference-cold') / rate('peer-cold'),
    webcryptoRatio: rate('reference') / rate('peer-webcrypto'),
    noStatusRatio: rate('reference-no-status') / rate('peer-no-status'),
    met: ratio >= TARGET_RATIO,
    sanity,
    ...(otherCores !== undefined ? { otherCores } : {}),
    checks: { reference: REFERENCE_CHECKS, peer: PEER_CHECKS },
  };
}
