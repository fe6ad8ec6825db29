import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { type ApproveTarget, approveSignin, parseApproveUrl } from '../wallet/account.ts';
import { heldClaims } from '../wallet/claims.ts';
import { WalletError, type WalletNetOptions } from '../wallet/net.ts';
import type { Candidate } from '../wallet/present.ts';
import { serviceOrigin } from '../wallet/service.ts';
import {
  createWallet,
  credentialType,
  defaultWalletPath,
  loadWallet,
  type StoredCredential,
  WALLET_FORMATS,
  type WalletFormat,
} from '../wallet/wallet-file.ts';
import { VERB_USAGE } from './usage.ts';
import { HOLDER_SUBCOMMANDS, UsageMistake } from './wallet-holder.ts';

/** How many operands each holder-plane subcommand takes, the service origin first. */
const HOLDER_ARITY = { items: 1, accept: 2, share: 2, me: 1, vote: 3, enroll: 1 } as const;

/**
 * `openrail wallet <subcommand>`: the reference wallet (docs/wallet-cli.md). Exit 0 when done, 1
 * when the wallet or a service refused (the message says which and why), 2 for a mistaken
 * command line.
 *
 * collect.ts and present.ts bring the OID4VCI and OID4VP clients, about 0.4 s of
 * start-up: they are imported inside the subcommands that speak those protocols, so `init`,
 * `list` and the holder-plane calls start about as fast as `openrail --version`.
 */
export async function wallet(args: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [sub, ...operands] = positionals;
  const path = values.wallet ?? defaultWalletPath();
  if (path === '') return usageError('--wallet names no file');
  const net: WalletNetOptions = { allowHttp: values['allow-http'] };
  const out = (line: string) => process.stdout.write(`${printable(line)}\n`);
  const expect = (n: number, what: string) => {
    if (operands.length !== n) throw new UsageError(`wallet ${sub} takes ${what}`);
  };
  try {
    switch (sub) {
      case 'init': {
        expect(0, 'no operand');
        const created = createWallet(path);
        out(`created a wallet at ${path} (keep it private: it holds the device key)`);
        out(`account ${created.accountId}`);
        return;
      }
      case 'collect': {
        expect(1, 'one operand: the credential offer URI');
        const format = values.format;
        if (format !== undefined && !(WALLET_FORMATS as readonly string[]).includes(format)) {
          throw new UsageError(`--format is ${WALLET_FORMATS.join(' or ')}`);
        }
        const opened = loadWallet(path);
        const { collect } = await import('../wallet/collect.ts');
        const { stored, claims } = await collect(opened, String(operands[0]), {
          net,
          ...(values['tx-code'] === undefined ? {} : { txCode: values['tx-code'] }),
          ...(format === undefined ? {} : { format: format as WalletFormat }),
        });
        out(`collected ${stored.id}: ${credentialType(stored)}`);
        out(`  issuer ${stored.issuer}`);
        for (const line of heldLines(stored, claims)) out(`  ${line}`);
        return;
      }
      case 'list': {
        expect(0, 'no operand');
        const opened = loadWallet(path);
        const listed = await Promise.all(opened.state.credentials.map(async (c) => ({ c, claims: await heldClaims(c) })));
        if (values.json) {
          // JSON escapes control characters itself; its own newlines are layout. An mdoc's elements are by namespace.
          const credentials = listed.map(({ c: { credential: _c, ...rest }, claims }) =>
            rest.format === 'mso_mdoc' ? { ...rest, namespaces: claims } : { ...rest, claims },
          );
          process.stdout.write(`${JSON.stringify({ accountId: opened.accountId, credentials }, null, 2)}\n`);
          return;
        }
        out(`account ${opened.accountId}`);
        if (listed.length === 0) out('no credentials yet: "openrail wallet collect <offer URI>" collects one');
        for (const { c, claims } of listed) {
          out(`${c.id}  ${credentialType(c)}`);
          out(`  issuer ${c.issuer}, collected ${c.collectedAt}`);
          for (const line of heldLines(c, claims)) out(`  ${line}`);
        }
        return;
      }
      case 'present': {
        expect(1, 'one operand: the openid4vp:// request URI');
        if (values.all && values.claims !== undefined) throw new UsageError('give --claims or --all, not both');
        const opened = loadWallet(path);
        const { answerRequest, openRequest } = await import('../wallet/present.ts');
        const request = await openRequest(opened, String(operands[0]), net);
        const doctype = request.mdocDoctype;
        if (doctype !== undefined && !opened.state.credentials.some((c) => c.format === 'mso_mdoc' && c.doctype === doctype)) {
          throw new WalletError(
            `the verifier asks for an mso_mdoc of doctype ${doctype.slice(0, 100)}, and the wallet holds none: "openrail wallet collect <offer URI> --format mso_mdoc" collects one.`,
          );
        }
        const candidate = choose(request.candidates, values.credential);
        const asked = Object.keys(candidate.asked);
        const { stored } = candidate;
        const held = stored.format === 'mso_mdoc' ? `${stored.doctype}, mso_mdoc` : stored.vct;
        out(`${request.clientId} asks ${stored.id} (${held}) for: ${asked.join(', ')}`);
        const disclose = await chooseClaims(candidate, values);
        out(disclose.length > 0 ? `disclosing ${disclose.join(', ')}` : 'disclosing no claim');
        const answer = await answerRequest(opened, request, candidate, disclose);
        if (answer.status >= 200 && answer.status < 300) {
          out('the verifier accepted the presentation');
          return;
        }
        const { error, error_description: description } = (answer.body ?? {}) as Record<string, unknown>;
        const why =
          typeof error === 'string'
            ? `${error}${typeof description === 'string' ? `: ${description}` : ''}`
            : `HTTP ${answer.status}`;
        out(`the verifier refused the presentation: ${why.slice(0, 500)}`);
        process.exitCode = 1;
        return;
      }
      case 'approve': {
        expect(1, 'one operand: the approve URL the sign-in page shows');
        let target: ApproveTarget;
        try {
          target = parseApproveUrl(String(operands[0]));
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        const { askedBy } = await approveSignin(loadWallet(path), target, net);
        out(`approved the sign-in asked by ${askedBy}`);
        return;
      }
      default: {
        const holder = sub === undefined ? undefined : HOLDER_SUBCOMMANDS[sub];
        if (!holder) throw new UsageError(sub === undefined ? 'name a subcommand' : `unknown subcommand "${sub}"`);
        expect(HOLDER_ARITY[sub as keyof typeof HOLDER_ARITY], holder.operands);
        let origin: string;
        try {
          origin = serviceOrigin(String(operands[0]));
        } catch (err) {
          throw new UsageError((err as Error).message);
        }
        await holder.run(loadWallet(path), origin, operands.slice(1), values, net, out);
        return;
      }
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof UsageMistake) return usageError(err.message);
    process.stderr.write(`openrail wallet: ${printable(describeFailure(err))}\n`);
    process.exitCode = 1;
  }
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      wallet: { type: 'string' },
      'allow-http': { type: 'boolean', default: false },
      'tx-code': { type: 'string' },
      credential: { type: 'string' },
      claims: { type: 'string' },
      all: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      format: { type: 'string' },
      decline: { type: 'boolean', default: false },
      with: { type: 'string' },
      elements: { type: 'string' },
      revoke: { type: 'string' },
    },
  });
}

class UsageError extends Error {}

function usageError(message: string): void {
  process.stderr.write(`openrail wallet: ${message}\n${VERB_USAGE.wallet}\n`);
  process.exitCode = 2;
}

function choose(candidates: Candidate[], wanted: string | undefined): Candidate {
  if (candidates.length === 0) throw new WalletError('no credential in the wallet matches what the verifier asks for.');
  if (wanted === undefined) {
    const [first] = candidates;
    if (candidates.length > 1 || !first) {
      throw new WalletError(
        `several credentials match (${candidates.map((c) => c.stored.id).join(', ')}): choose one with --credential.`,
      );
    }
    return first;
  }
  const found = candidates.find((c) => c.stored.id === wanted);
  if (!found) throw new WalletError(`${wanted.slice(0, 20)} does not match what the verifier asks for.`);
  return found;
}

/** --all, --claims, or, on a terminal, a question per claim; the default answer is no. */
async function chooseClaims(candidate: Candidate, values: { all: boolean; claims?: string | undefined }): Promise<string[]> {
  const asked = Object.keys(candidate.asked);
  if (values.all) return asked;
  if (values.claims !== undefined) {
    const named = values.claims
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
    const notAsked = named.filter((c) => !asked.includes(c));
    if (notAsked.length > 0)
      throw new WalletError(`the verifier did not ask for ${notAsked.join(', ').slice(0, 200)}: nothing was sent.`);
    return named;
  }
  if (!process.stdin.isTTY)
    throw new UsageError('say what to disclose: --claims <a,b> or --all (or run on a terminal to be asked)');
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const chosen: string[] = [];
    for (const claim of asked) {
      const reply = await prompt.question(printable(`disclose ${claim} = ${show(candidate.asked[claim])}? [y/N] `));
      if (/^y(es)?$/i.test(reply.trim())) chosen.push(claim);
    }
    return chosen;
  } finally {
    prompt.close();
  }
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const claimLines = (claims: Record<string, unknown>) => Object.entries(claims).map(([k, v]) => `${k}: ${show(v)}`);

/** An SD-JWT VC's claims, one a line; an mdoc's elements under their namespace. */
const heldLines = (stored: StoredCredential, claims: Record<string, unknown>) =>
  stored.format === 'mso_mdoc'
    ? Object.entries(claims).flatMap(([ns, elements]) => [
        `${ns}:`,
        ...claimLines((elements ?? {}) as Record<string, unknown>).map((line) => `  ${line}`),
      ])
    : claimLines(claims);

/**
 * What issuers and verifiers send is shown to the holder: control characters (terminal escape
 * sequences among them) and bidirectional overrides are shown as \u escapes, never obeyed.
 */
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A failure in a sentence: the wallet's own words, or the library's, bounded. */
function describeFailure(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s+/g, ' ').slice(0, 500);
}
