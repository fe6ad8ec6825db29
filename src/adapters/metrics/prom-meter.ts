import type promClient from 'prom-client';
import { whenFirstUsed } from '../../core/lazy-package.ts';
import type { Meter } from '../../ports/meter.ts';

/** prom-client, loaded with the first meter: a deployment with metrics off never loads it. */
const library = whenFirstUsed<typeof promClient>('prom-client');

/** Latency buckets in seconds: from a cached status list (about a millisecond) to a slow outbound call. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Signing buckets in seconds: an in-process signature (a tenth of a millisecond) to a network HSM's round trips. */
const SIGNING_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/** The Meter of a deployment with metrics on, through prom-client, on its own registry (one per started service, so two in one process never share counts). */
export function promMeter(node?: string): Meter {
  const { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } = library();
  const registry = new Registry();
  // Every series names its node (OPENRAIL_NODE_ID), so scrapes of several nodes stay apart.
  if (node) registry.setDefaultLabels({ node });
  collectDefaultMetrics({ register: registry, prefix: 'openrail_' });
  const requests = new Counter({
    name: 'openrail_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'openrail_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const issued = new Counter({ name: 'openrail_credentials_issued_total', help: 'Credentials issued.', registers: [registry] });
  const verified = new Counter({
    name: 'openrail_verifications_total',
    help: 'Presentations verified, by outcome (accepted, or the failed link).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'openrail_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'openrail_job_runs_total',
    help: 'Background job runs on this process, by job and result.',
    labelNames: ['job', 'result'] as const,
    registers: [registry],
  });
  const mail = new Counter({
    name: 'openrail_mail_total',
    help: 'Mail handed to the transport, by result.',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const signatures = new Counter({
    name: 'openrail_signatures_total',
    help: 'Signatures asked of the key backend, by backend (sealed or pkcs11) and result (signed or error).',
    labelNames: ['backend', 'result'] as const,
    registers: [registry],
  });
  const signing = new Histogram({
    name: 'openrail_signature_duration_seconds',
    help: 'Time the key backend took to sign, by backend.',
    labelNames: ['backend'] as const,
    buckets: SIGNING_BUCKETS,
    registers: [registry],
  });
  return {
    signature: (backend, ok, seconds) => {
      signatures.inc({ backend, result: ok ? 'signed' : 'error' });
      if (ok) signing.observe({ backend }, seconds);
    },
    request: (method, route, status, seconds) => {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    issued: (count) => issued.inc(count),
    verified: (outcome) => verified.inc({ outcome }),
    delivery: (result) => deliveries.inc({ result }),
    jobRun: (job, ok) => jobs.inc({ job, result: ok ? 'ok' : 'error' }),
    mail: (ok) => mail.inc({ result: ok ? 'sent' : 'refused' }),
    gauge: (name, help, read, label) => {
      new Gauge({
        name,
        help,
        labelNames: label ? [label] : [],
        registers: [registry],
        async collect() {
          const value = await read();
          if (typeof value === 'number') this.set(value);
          else for (const [k, v] of Object.entries(value)) this.set({ [label ?? 'kind']: k }, v);
        },
      });
    },
    exposition: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  };
}
