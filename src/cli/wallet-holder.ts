import { randomBytes } from 'node:crypto';
import { isId } from '../core/ids.ts';
import { WalletError, type WalletNetOptions } from '../wallet/net.ts';
import { callService, succeeded } from '../wallet/service.ts';
import { credentialType, type StoredSdJwt, type Wallet } from '../wallet/wallet-file.ts';

/** The most pages `items` follows: 10 of 100 envelopes. */
const MAX_ITEM_PAGES = 10;

export interface HolderOptions {
  json: boolean;
  decline: boolean;
  'tx-code'?: string;
  credential?: string;
  with?: string;
  elements?: string;
  revoke?: string;
}

type Out = (line: string) => void;
type Json = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const list = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/**
 * The reference wallet's side of the holder plane (docs/wallet-cli.md): the items a service
 * holds for the wallet's account, their acceptance and sharing, membership, enrolment and votes.
 * Each subcommand's first operand is the service's origin.
 */
export const HOLDER_SUBCOMMANDS: Record<
  string,
  {
    operands: string;
    run: (w: Wallet, origin: string, args: string[], o: HolderOptions, net: WalletNetOptions, out: Out) => Promise<void>;
  }
> = {
  items: {
    operands: 'the service origin',
    run: async (w, origin, _args, o, net, out) => {
      const items: Json[] = [];
      let fixtures = false;
      let cursor: string | undefined;
      for (let page = 0; page < MAX_ITEM_PAGES; page++) {
        const query = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const body = succeeded(
          await callService(undefined, origin, 'GET', `/api/wallet/${w.accountId}/items${query}`, undefined, net),
        );
        items.push(...((body.items as Json[]) ?? []));
        fixtures ||= body.fixtures === true;
        cursor = typeof body.nextCursor === 'string' ? body.nextCursor : undefined;
        if (!cursor) break;
      }
      if (o.json) return void process.stdout.write(`${JSON.stringify({ accountId: w.accountId, fixtures, items }, null, 2)}\n`);
      out(`account ${w.accountId}${fixtures ? ' (includes demonstration data)' : ''}`);
      if (items.length === 0) out('no items: offers and deposits appear once the account is a member of their tenant');
      for (const i of items) {
        const tenant = (i.tenant ?? {}) as Json;
        out(`${str(i.itemId)}  ${str(i.kind)}  ${str(i.state)}${i.demo === true ? '  (demo)' : ''}`);
        out(`  ${str(i.title)}, from ${str(tenant.name)} (${str(tenant.slug)})`);
      }
    },
  },
  accept: {
    operands: 'the service origin and an item id',
    run: async (w, origin, [itemId], o, net, out) => {
      const decision = o.decline ? 'decline' : 'accept';
      const body = succeeded(await callService(w, origin, 'POST', itemPath(w, itemId, 'accept'), { decision }, net));
      const item = body.item as Json;
      out(`${str(item.itemId)} ${str(item.state)}: ${str(item.title)}`);
      if (typeof body.offerUri === 'string') {
        // Loaded here, not with this module: the OID4VCI client is for accepted offers only (wallet.ts).
        const { collect } = await import('../wallet/collect.ts');
        const { stored } = await collect(w, body.offerUri, { net, ...(o['tx-code'] ? { txCode: o['tx-code'] } : {}) });
        out(`collected ${stored.id}: ${credentialType(stored)}`);
      }
      if (body.deposit && typeof body.deposit === 'object') {
        const d = body.deposit as Json;
        for (const key of ['kind', 'title', 'issuedAt', 'dueAt', 'reference'])
          if (d[key] !== undefined) out(`  ${key}: ${str(d[key])}`);
        if (d.amount) out(`  amount: ${money(d.amount as Json)}`);
        for (const line of (d.lines as Json[] | undefined) ?? []) {
          out(`  - ${str(line.label)}${line.amount ? `: ${money(line.amount as Json)}` : ''}`);
        }
      }
      if (body.channel && typeof body.channel === 'object') {
        const c = body.channel as Json;
        out(`  channel with ${str(c.tenant)} is ${str(c.state)}; it asks for ${(c.elements as string[]).join(', ')}`);
      }
    },
  },
  share: {
    operands: 'the service origin and an item id',
    run: async (w, origin, [itemId], o, net, out) => {
      if ((o.with === undefined) !== (o.elements === undefined)) throw new UsageMistake('--with and --elements go together');
      const request: Json = {};
      if (o.with !== undefined) request.shares = [{ tenant: o.with, elements: list(o.elements) }];
      if (o.revoke !== undefined) request.revoke = list(o.revoke);
      const body = succeeded(await callService(w, origin, 'POST', itemPath(w, itemId, 'sharing'), request, net));
      const shares = (body.shares as Json[]) ?? [];
      if (shares.length === 0) out(`${str(body.itemId)} is shared with no one`);
      for (const s of shares)
        out(`shared with ${str(s.tenant)} (channel ${str(s.channel)}): ${(s.elements as string[]).join(', ')}`);
      for (const e of (body.log as Json[]) ?? []) {
        const what = (e.elements as string[]).join(', ') || 'nothing';
        out(`  ${str(e.at)}  ${str(e.tenant)}: ${what}`);
      }
    },
  },
  me: {
    operands: 'the service origin',
    run: async (w, origin, _args, o, net, out) => {
      const body = succeeded(await callService(w, origin, 'GET', '/member/me', undefined, net));
      if (o.json) return void process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
      const memberships = (body.memberships as Json[]) ?? [];
      out(`account ${w.accountId}`);
      if (memberships.length === 0) out('a member of no programme: "openrail wallet enroll" enrols by presenting a credential');
      for (const m of memberships) {
        out(
          `member of ${str(m.tenantName)} (${str(m.tenant)}): tier ${str(m.tier)}, ${str(m.status)}, balance ${str(m.balance)}`,
        );
      }
      for (const p of (body.proposals as Json[]) ?? []) {
        out(`proposal ${str(p.proposalId)} of ${str(p.tenant)}: ${str(p.title)}`);
        out(`  options: ${(p.options as string[]).join(' | ')}; closes ${str(p.closesAt)}${p.voted === true ? '; voted' : ''}`);
      }
    },
  },
  vote: {
    operands: 'the service origin, a proposal id and an option',
    run: async (w, origin, [proposalId, option], _o, net, out) => {
      const body = succeeded(await callService(w, origin, 'POST', '/member/vote', { proposalId, option }, net));
      out(`voted ${str(body.option)} on ${str(body.proposalId)} (${str(body.tenant)})`);
    },
  },
  enroll: {
    operands: 'the service origin',
    run: async (w, origin, _args, o, net, out) => {
      // Enrolment asks by vct: the wallet's SD-JWT VCs of this service.
      const held = w.state.credentials.filter(
        (c): c is StoredSdJwt => c.format === 'dc+sd-jwt' && c.vct.startsWith(`${origin}/`),
      );
      const chosen = o.credential === undefined ? held : held.filter((c) => c.id === o.credential);
      const [credential] = chosen;
      if (!credential || chosen.length > 1) {
        throw new WalletError(
          chosen.length > 1
            ? `several credentials of this service (${held.map((c) => c.id).join(', ')}): choose one with --credential.`
            : 'the wallet holds no such credential of this service.',
        );
      }
      // The wallet opens the hosted verification itself, asks for no claim, and answers it:
      // enrolment proves the key that holds the credential, and discloses nothing else.
      const nonce = randomBytes(24).toString('base64url');
      const request = {
        vct: credential.vct,
        claims: [],
        nonce,
        aud: 'openrail reference wallet (enrolment)',
      };
      const opened = succeeded(await callService(undefined, origin, 'POST', '/verify/request', request, net));
      const { answerRequest, openRequest } = await import('../wallet/present.ts');
      const answerTo = await openRequest(w, String(opened.requestUri), net);
      const candidate = answerTo.candidates.find((c) => c.stored.id === credential.id);
      if (!candidate) throw new WalletError(`${credential.id} does not answer the service's request.`);
      const presented = await answerRequest(w, answerTo, candidate, []);
      if (presented.status < 200 || presented.status >= 300) {
        throw new WalletError(`the service did not accept the presentation (HTTP ${presented.status}).`);
      }
      const enrol = { transactionId: opened.transactionId, resultToken: opened.resultToken };
      const member = succeeded(await callService(undefined, origin, 'POST', '/member/enroll', enrol, net));
      out(`enrolled in ${str(member.tenant)} as ${str(member.tier)} with ${credential.id} (${credential.vct})`);
    },
  },
};

export class UsageMistake extends Error {}

function itemPath(w: Wallet, itemId: string | undefined, what: 'accept' | 'sharing'): string {
  if (!itemId || !isId('item', itemId)) throw new UsageMistake('an item id looks like itm_ and 22 characters');
  return `/api/wallet/${w.accountId}/items/${itemId}/${what}`;
}

function money(m: Json): string {
  const value = Number(m.value);
  const currency = str(m.currency);
  const digits = (() => {
    try {
      return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      return 2;
    }
  })();
  return `${(value / 10 ** digits).toFixed(digits)} ${currency}`;
}
