/**
 * What a serving process loads only when first used (core/lazy-package.ts; issue 54, point 3)
 * answers its first request correctly, in a process started as a deployment starts it
 * (`bin/openrail.js`: the bundle where it is current): a QR code (qrcode), a shipped document
 * (markdown-it), the metrics (prom-client, with OPENRAIL_METRICS_TOKEN) and a mail over SMTP
 * (nodemailer, to a real SMTP server in this process); and what is made or read by its first
 * reader: the OpenAPI document (src/app/start.ts) and the API reference's vendor file
 * (src/web/assets.ts). PostgreSQL's driver is first used by every suite on PostgreSQL, and
 * openid-client by the sign-in suite (src/features/operators/sign-in.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freePort, type OpenrailProcess, REPO_ROOT, serveOn } from '../helpers/process.ts';
import { codeIn, type Mailbox, mailTo, startSmtp } from '../helpers/smtp.ts';

const METRICS_TOKEN = 'first-use-metrics-token-0123456789abcdef';

describe('the parts loaded on first use answer their first request', () => {
  let dir: string;
  let mail: Mailbox;
  let server: { proc: OpenrailProcess; origin: string };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'openrail-first-use-'));
    mail = await startSmtp();
    server = await serveOn(
      {
        OPENRAIL_DATA_DIR: dir,
        DATABASE_URL: `sqlite:${join(dir, 'openrail.sqlite')}`,
        OPENRAIL_METRICS_TOKEN: METRICS_TOKEN,
        OPENRAIL_SMTP_URL: mail.url,
        LOG_LEVEL: 'warn',
      },
      await freePort(),
    );
  });
  after(async () => {
    server?.proc.kill();
    await server?.proc.exited(30_000);
    await mail?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // First, so that no page has made the document before it is asked for.
  test('the OpenAPI document, built by its first reader', async () => {
    const res = await fetch(`${server.origin}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.paths['/openapi.json']?.get?.operationId, 'get_openapi_json');
    assert.ok(Object.keys(doc.paths).length > 200, `${Object.keys(doc.paths).length} paths`);
    const again = await fetch(`${server.origin}/openapi.json`);
    assert.deepEqual(await again.json(), doc, 'a second reader is given the same document');
  });

  test('the vendor file of the API reference, read again by its first request', async () => {
    const res = await fetch(`${server.origin}/docs/assets/swagger-ui-bundle.js`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.ok(bytes.equals(readFileSync(join(REPO_ROOT, 'node_modules', 'swagger-ui-dist', 'swagger-ui-bundle.js'))));
    assert.equal(res.headers.get('etag'), `"${createHash('sha256').update(bytes).digest('base64url')}"`);
  });

  test('a QR code (qrcode)', async () => {
    const res = await fetch(`${server.origin}/api/qr?data=${encodeURIComponent('openid4vp://?request_uri=x')}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.match(await res.text(), /^<svg [^>]*viewBox="0 0 \d+ \d+"[\s\S]*<path [\s\S]*<\/svg>\s*$/);
  });

  test('a shipped document, rendered (markdown-it)', async () => {
    const res = await fetch(`${server.origin}/developers/docs/issuance`);
    assert.equal(res.status, 200);
    const page = await res.text();
    assert.match(page, /<h1>[^<]+<\/h1>/);
    assert.match(page, /<a href="\/developers\/docs\/[a-z-]+(#[^"]*)?">/, 'links between documents are rewritten');
  });

  test('the metrics (prom-client)', async () => {
    const res = await fetch(`${server.origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.match(text, /^# TYPE openrail_http_requests_total counter$/m);
    assert.match(text, /^openrail_process_resident_memory_bytes\{[^}]*\} \d+/m);
  });

  test('a mail over SMTP (nodemailer)', async () => {
    const res = await fetch(`${server.origin}/onboard/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'ada@example.org' }),
    });
    assert.equal(res.status, 202, await res.text());
    assert.match(codeIn(await mailTo(mail, 'ada@example.org')), /^\d{6}$/);
  });
});
