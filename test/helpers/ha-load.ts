/**
 * Mixed writes driven over HTTP at openrail nodes while the cluster underneath is disrupted
 * (issue 51; docs/high-availability.md), and what they left behind: operator writes (a tenant
 * created, with its audit entry and event), whole pre-authorized issuances (offer, token,
 * credential), revocations and deposits (a bill, on its tenant's hash chain), spread round robin
 * over the nodes. Every answer is recorded with
 * its status and error code; every write a node acknowledged (2xx) is remembered, so that
 * afterwards each can be looked for in the database, once.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { billBody } from './deposits.ts';
import { accountOf, type HolderKey, newHolderKey } from './holder.ts';
import { CARD_CLAIMS, CARD_SUBJECT, PRE_AUTH, proofJwt } from './issuance.ts';

export interface Answer {
  /** When the answer came (ms since the epoch). */
  at: number;
  what: 'tenant' | 'offer' | 'token' | 'credential' | 'revoke' | 'deposit';
  node: string;
  /** null: no HTTP answer at all (the node is down). */
  status: number | null;
  error?: string;
  retryAfter?: string;
}

export interface Acknowledged {
  tenants: Map<string, string>;
  offers: Set<string>;
  redeemed: Set<string>;
  credentials: Set<string>;
  revoked: Set<string>;
  deposits: Set<string>;
}

export interface LoadTarget {
  /** The base URLs of the nodes, answered round robin. */
  nodes: string[];
  /** The PUBLIC_URL the nodes share: a key proof's audience. */
  publicUrl: string;
  ownerToken: string;
  /** A credential type of the root tenant. */
  typeId: string;
  /** A tenant with an approved bill product and an enrolled account: deposits go there. */
  deposits: { tenant: string; accountId: string };
}

const ASK_TIMEOUT_MS = 30_000;

export class WriteLoad {
  readonly answers: Answer[] = [];
  readonly acknowledged: Acknowledged = {
    tenants: new Map(),
    offers: new Set(),
    redeemed: new Set(),
    credentials: new Set(),
    revoked: new Set(),
    deposits: new Set(),
  };
  /** Run-unique, so that what this load made is told apart from everything else. */
  readonly run = randomBytes(3).toString('hex');
  private running = false;
  private loops: Promise<void>[] = [];
  private turn = 0;
  private holder?: HolderKey;

  constructor(private readonly target: LoadTarget) {}

  start(workers: number): void {
    this.running = true;
    this.loops = Array.from({ length: workers }, (_, w) => this.loop(w));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Acknowledged writes per second since `since`, for waiting until the load flows again. */
  okSince(since: number): number {
    return this.answers.filter((a) => a.at >= since && a.status !== null && a.status < 300).length;
  }

  private async loop(worker: number): Promise<void> {
    this.holder ??= await newHolderKey();
    for (let i = 0; this.running; i++) {
      const kind = (worker + i) % 4;
      if (kind === 0) await this.newTenant(`Load ${this.run} ${worker}-${i}`);
      else if (kind === 1) await this.issue();
      else if (kind === 2) await this.revokeOne();
      else await this.deposit();
    }
  }

  private node(): string {
    const nodes = this.target.nodes;
    return nodes[this.turn++ % nodes.length] as string;
  }

  /** One request to the next node: its JSON answer when 2xx, recorded either way. */
  private async ask(
    what: Answer['what'],
    path: string,
    init: { body: string; type: string; auth?: string },
  ): Promise<Record<string, unknown> | undefined> {
    const node = this.node();
    let res: Response;
    try {
      res = await fetch(`${node}${path}`, {
        method: 'POST',
        headers: { 'content-type': init.type, ...(init.auth ? { authorization: init.auth } : {}) },
        body: init.body,
        signal: AbortSignal.timeout(ASK_TIMEOUT_MS),
      });
    } catch {
      this.answers.push({ at: Date.now(), what, node, status: null });
      await pause(200);
      return undefined;
    }
    const text = await res.text();
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const ok = res.status >= 200 && res.status < 300;
    const retryAfter = res.headers.get('retry-after');
    this.answers.push({
      at: Date.now(),
      what,
      node,
      status: res.status,
      ...(!ok && typeof json?.error === 'string' ? { error: json.error } : {}),
      ...(retryAfter ? { retryAfter } : {}),
    });
    if (!ok) await pause(100);
    return ok ? json : undefined;
  }

  private asOwner = (body: unknown) => ({
    body: JSON.stringify(body),
    type: 'application/json',
    auth: `Bearer ${this.target.ownerToken}`,
  });

  private async newTenant(name: string): Promise<void> {
    const made = await this.ask('tenant', '/api/tenants', this.asOwner({ name }));
    if (made) this.acknowledged.tenants.set(String(made.slug), name);
  }

  private async issue(): Promise<void> {
    const offer = await this.ask(
      'offer',
      '/api/offers',
      this.asOwner({ tenant: 'root', typeId: this.target.typeId, subject: CARD_SUBJECT }),
    );
    if (!offer) return;
    const offerId = String(offer.offerId);
    this.acknowledged.offers.add(offerId);
    const grant = JSON.parse(new URL(String(offer.offerUri)).searchParams.get('credential_offer') ?? '{}').grants[PRE_AUTH];
    const token = await this.ask('token', '/token', {
      body: new URLSearchParams({ grant_type: PRE_AUTH, 'pre-authorized_code': grant['pre-authorized_code'] }).toString(),
      type: 'application/x-www-form-urlencoded',
    });
    if (!token) return;
    this.acknowledged.redeemed.add(offerId);
    const proof = await proofJwt(this.holder as HolderKey, { aud: this.target.publicUrl, nonce: String(token.c_nonce) });
    const credential = await this.ask('credential', '/credential', {
      body: JSON.stringify({ credential_configuration_id: this.target.typeId, proofs: { jwt: [proof] } }),
      type: 'application/json',
      auth: `Bearer ${token.access_token}`,
    });
    if (credential) this.acknowledged.credentials.add(offerId);
  }

  private async deposit(): Promise<void> {
    const { tenant, accountId } = this.target.deposits;
    const body = billBody(accountId);
    const made = await this.ask('deposit', `/api/tenants/${tenant}/bills`, this.asOwner(body));
    if (made) this.acknowledged.deposits.add(body.depositId);
  }

  private async revokeOne(): Promise<void> {
    const offerId = [...this.acknowledged.credentials].find((id) => !this.acknowledged.revoked.has(id));
    if (!offerId) return this.issue();
    // Claimed before asking, so that two workers never revoke the same one.
    this.acknowledged.revoked.add(offerId);
    const done = await this.ask('revoke', '/api/revoke', this.asOwner({ tenant: 'root', offerId }));
    if (!done) this.acknowledged.revoked.delete(offerId);
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers the JSON of a 2xx answer to `path`, or throws naming the answer. */
async function call(origin: string, owner: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * What the load needs made first, through `origin`: a credential type of the root tenant, and a
 * tenant with an approved bill product and an enrolled account for the deposits; with `webhooks`,
 * endpoints of the root tenant and of the deposits' tenant for the events the load makes.
 */
export async function prepareLoad(
  origin: string,
  owner: string,
  nodes: { nodes: string[]; publicUrl: string },
  webhooks?: string,
): Promise<LoadTarget> {
  const suffix = randomBytes(3).toString('hex');
  const type = await call(origin, owner, '/api/types', { tenant: 'root', name: `Failover card ${suffix}`, claims: CARD_CLAIMS });
  const tenant = String((await call(origin, owner, '/api/tenants', { name: `Failover deposits ${suffix}` })).slug);
  const product = await call(origin, owner, '/api/products', { tenant, kind: 'bill', name: 'Water bill' });
  await call(origin, owner, `/api/products/${product.productId}/approve`, {});
  const accountId = accountOf(await newHolderKey());
  await call(origin, owner, '/api/members/enroll', { tenant, accountId });
  if (webhooks) {
    await call(origin, owner, '/api/admin/integration/webhooks', {
      tenant: 'root',
      url: webhooks,
      events: ['credential.issued', 'credential.revoked'],
    });
    await call(origin, owner, '/api/admin/integration/webhooks', { tenant, url: webhooks, events: ['deposit.created'] });
  }
  return { ...nodes, ownerToken: owner, typeId: String(type.typeId), deposits: { tenant, accountId } };
}

/** A webhook endpoint on loopback that keeps every envelope it is sent (docs/events.md). */
export async function webhookReceiver(): Promise<{
  url: string;
  events: Array<{ type: string; data: Record<string, unknown> }>;
  close(): Promise<void>;
}> {
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: Record<string, unknown> };
        events.push({ type: envelope.type, data: envelope.data });
      } catch {
        // Not an envelope: answered all the same.
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Waits (up to `limitMs`) until the receiver has an event for every acknowledged credential
 * (`credential.issued`), revocation (`credential.revoked`) and deposit (`deposit.created`);
 * answers those still missing, named.
 */
export async function undelivered(
  databaseUrl: string,
  load: WriteLoad,
  received: ReadonlyArray<{ type: string; data: Record<string, unknown> }>,
  limitMs = 60_000,
): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let credentialOf: Map<string, string>;
  try {
    const rows = await client.query<{ id: string; offer_id: string }>(
      'select id, offer_id from issued_credentials where offer_id = any($1)',
      [[...load.acknowledged.revoked]],
    );
    credentialOf = new Map(rows.rows.map((r) => [r.offer_id, r.id]));
  } finally {
    await client.end();
  }
  const missing = () => {
    const seen = (type: string, field: string) =>
      new Set(received.filter((e) => e.type === type).map((e) => String(e.data[field])));
    const issued = seen('credential.issued', 'offerId');
    const revoked = seen('credential.revoked', 'credentialId');
    const deposited = seen('deposit.created', 'depositId');
    return [
      ...[...load.acknowledged.credentials].filter((id) => !issued.has(id)).map((id) => `credential.issued of offer ${id}`),
      ...[...load.acknowledged.revoked]
        .filter((id) => !revoked.has(credentialOf.get(id) ?? ''))
        .map((id) => `credential.revoked of offer ${id}`),
      ...[...load.acknowledged.deposits].filter((id) => !deposited.has(id)).map((id) => `deposit.created of ${id}`),
    ];
  };
  const until = Date.now() + limitMs;
  while (missing().length > 0 && Date.now() < until) await pause(500);
  return missing();
}

/**
 * Runs the load (6 workers) at `target`, steady for two seconds, then `disrupt`s, waits until
 * writes are acknowledged again (at least five seconds after the disruption), lets it run three
 * seconds more, and stops: the load, and when the disruption began.
 */
export async function driveThrough(target: LoadTarget, disrupt: () => Promise<unknown>, workers = 6) {
  const load = new WriteLoad(target);
  load.start(workers);
  await pause(2_000);
  const began = Date.now();
  try {
    await disrupt();
    const until = Date.now() + 90_000;
    while (Date.now() < until && (Date.now() - began < 5_000 || load.okSince(Date.now() - 1_000) === 0)) await pause(250);
    await pause(3_000);
  } finally {
    await load.stop();
  }
  return { load, began };
}

/** The longest stretch (ms) after `from` during which no write was acknowledged: the outage as clients saw it. */
export function longestGap(answers: readonly Answer[], from: number): number {
  const oks = answers
    .filter((a) => a.at >= from && a.status !== null && a.status < 300)
    .map((a) => a.at)
    .sort((a, b) => a - b);
  let gap = 0;
  let last = from;
  for (const at of oks) {
    gap = Math.max(gap, at - last);
    last = at;
  }
  return gap;
}

/**
 * What the database holds of the acknowledged writes, read straight from the primary: how many
 * were acknowledged, how many are found, and each that is missing or was made more than once,
 * named (none when every acknowledged write is there exactly once).
 */
export async function acknowledgedFound(
  databaseUrl: string,
  load: WriteLoad,
): Promise<{ acknowledged: number; found: number; problems: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const problems: string[] = [];
    const ack = load.acknowledged;
    const names = await client.query<{ name: string; n: number }>(
      'select name, count(*)::int as n from tenants where name like $1 group by name',
      [`Load ${load.run} %`],
    );
    const made = new Map(names.rows.map((r) => [r.name, r.n]));
    let found = 0;
    for (const [slug, name] of ack.tenants) {
      if (made.has(name)) found++;
      else problems.push(`tenant ${slug} (${name}) is missing`);
    }
    for (const [name, n] of made) if (n > 1) problems.push(`tenant ${name} was made ${n} times`);
    const offers = await client.query<{ id: string; redeemed: boolean; credentials: number; revoked: number }>(
      `select o.id, o.redeemed_at is not null as redeemed,
         (select count(*)::int from issued_credentials c where c.offer_id = o.id) as credentials,
         (select count(*)::int from issued_credentials c where c.offer_id = o.id and c.revoked_at is not null) as revoked
       from offers o where o.id = any($1)`,
      [[...ack.offers]],
    );
    const rows = new Map(offers.rows.map((r) => [r.id, r]));
    for (const id of ack.offers) {
      const row = rows.get(id);
      if (!row) {
        problems.push(`offer ${id} is missing`);
        continue;
      }
      found++;
      const check = (acked: boolean, there: boolean, problem: string) => {
        if (acked && there) found++;
        else if (acked) problems.push(problem);
      };
      check(ack.redeemed.has(id), row.redeemed, `offer ${id} was redeemed, but is not`);
      check(ack.credentials.has(id), row.credentials === 1, `offer ${id} has ${row.credentials} credentials`);
      check(ack.revoked.has(id), row.revoked === 1, `the credential of offer ${id} was revoked, but is not`);
      if (row.credentials > 1) problems.push(`offer ${id} was collected ${row.credentials} times`);
    }
    const deposits = await client.query<{ deposit_id: string; n: number }>(
      'select deposit_id, count(*)::int as n from deposits where deposit_id = any($1) group by deposit_id',
      [[...ack.deposits]],
    );
    const depositCounts = new Map(deposits.rows.map((r) => [r.deposit_id, r.n]));
    for (const id of ack.deposits) {
      const n = depositCounts.get(id) ?? 0;
      if (n === 1) found++;
      else problems.push(`deposit ${id} is there ${n} times`);
    }
    const acknowledged =
      ack.tenants.size + ack.offers.size + ack.redeemed.size + ack.credentials.size + ack.revoked.size + ack.deposits.size;
    return { acknowledged, found, problems };
  } finally {
    await client.end();
  }
}
