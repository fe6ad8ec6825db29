/**
 * OpenTelemetry traces (issue 51; docs/operations.md, "Tracing"), exported over OTLP (http/json)
 * to a small receiver of the test's own, on each engine: a request that enters with a W3C
 * `traceparent` is a server span of that trace, child of the caller's span, named by its route
 * template, with its database statements under it; the node is named in the resource. Secrets
 * planted in a header, a query string and a form body appear nowhere in what was exported. With no
 * OTEL variables nothing is traced (the SDK is not even loaded).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { type TestDatabase, testDatabases } from '../helpers/databases.ts';
import { OWNER_TOKEN, owner, startRail, type TestRail } from '../helpers/rail.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

describe('tracing over OTLP', () => {
  const bodies: string[] = [];
  let receiver: Server;
  let endpoint: string;

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // The SDK reads the standard variables itself.
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_SERVICE_NAME: 'openrail-trace-test',
    });
  });
  after(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  test('off unless an OTLP endpoint is configured, and off when disabled', () => {
    assert.equal(loadConfig({}).tracing, false);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, true);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).tracing, true);
    assert.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, false);
    assert.equal(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing,
      false,
    );
  });

  for (const factory of testDatabases()) {
    describe(factory.name, () => {
      let db: TestDatabase;
      let rail: TestRail;
      before(async () => {
        db = await factory.create();
        rail = await startRail(
          db,
          { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OPENRAIL_NODE_ID: 'trace-node', OPENRAIL_DEMO: 'off' },
          undefined,
          {
            runJobs: false,
          },
        );
      });
      after(async () => {
        await rail?.stop();
        await db?.drop();
      });

      test('a request with a traceparent is a span of that trace, its statements under it, and no secret is exported', async () => {
        const traceId = randomBytes(16).toString('hex');
        const callerSpan = randomBytes(8).toString('hex');
        const plantedCode = `planted-code-${randomBytes(8).toString('hex')}`;
        const plantedQuery = `planted-query-${randomBytes(8).toString('hex')}`;
        const made = await rail.app.inject({
          method: 'POST',
          url: `/api/tenants?note=${plantedQuery}`,
          headers: { ...owner, traceparent: `00-${traceId}-${callerSpan}-01` },
          payload: { name: `Traced ${factory.name}` },
        });
        assert.ok([201, 400].includes(made.statusCode), made.body);
        const tenant = await rail.app.inject({
          method: 'POST',
          url: '/api/tenants',
          headers: { ...owner, traceparent: `00-${traceId}-${callerSpan}-01` },
          payload: { name: `Traced ${factory.name}` },
        });
        assert.equal(tenant.statusCode, 201, tenant.body);
        const refused = await rail.app.inject({
          method: 'POST',
          url: '/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded', traceparent: `00-${traceId}-${callerSpan}-01` },
          payload: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
            'pre-authorized_code': plantedCode,
          }).toString(),
        });
        assert.equal(refused.statusCode, 400, refused.body);
        const untraced = await rail.app.inject({ method: 'GET', url: '/.well-known/did.json' });
        assert.equal(untraced.statusCode, 200);
        await rail.stop(); // flushes what is left in the batch
        rail = await startRail(
          db,
          { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OPENRAIL_NODE_ID: 'trace-node', OPENRAIL_DEMO: 'off' },
          undefined,
          {
            runJobs: false,
          },
        );

        const exports = bodies.map((b) => JSON.parse(b) as OtlpExport);
        const spans = exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
        const ours = spans.filter((s) => s.traceId === traceId);
        const servers = ours.filter((s) => s.kind === 2);
        assert.deepEqual(
          servers.map((s) => s.name).sort(),
          ['POST /api/tenants', 'POST /api/tenants', 'POST /token'],
          'one server span per request, named by its route template',
        );
        assert.ok(
          servers.every((s) => s.parentSpanId === callerSpan),
          'each is a child of the caller’s span',
        );
        const engine = factory.name === 'postgres' ? 'postgresql' : 'sqlite';
        const statements = ours.filter((s) => s.name.startsWith('db '));
        assert.ok(statements.length >= 3, `statements traced: ${ours.map((s) => s.name).join(', ')}`);
        const attribute = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value;
        assert.ok(statements.every((s) => attribute(s, 'db.system.name')?.stringValue === engine));
        assert.ok(
          statements.some((s) => s.name === 'db insert'),
          'the tenant’s insert is among them',
        );
        const serverIds = new Set(servers.map((s) => s.spanId));
        assert.ok(
          statements.every((s) => s.parentSpanId && serverIds.has(s.parentSpanId)),
          'under their request',
        );
        const resource = exports.flatMap((e) => e.resourceSpans.map((r) => r.resource.attributes));
        assert.ok(
          resource.every((attrs) => attrs.some((a) => a.key === 'service.instance.id' && a.value.stringValue === 'trace-node')),
        );
        assert.ok(
          resource.every((attrs) => attrs.some((a) => a.key === 'service.name' && a.value.stringValue === 'openrail-trace-test')),
        );

        const exported = bodies.join('\n');
        for (const secret of [OWNER_TOKEN, plantedCode, plantedQuery, 'Traced ', Buffer.alloc(32, 7).toString('base64url')]) {
          assert.ok(!exported.includes(secret), `the export holds ${secret.slice(0, 16)}…`);
        }
      });
    });
  }
});
