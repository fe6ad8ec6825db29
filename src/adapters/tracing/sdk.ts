import { ProxyTracerProvider, trace } from '@opentelemetry/api';

/**
 * Starts the OpenTelemetry SDK that exports the spans core/tracing.ts makes (docs/operations.md,
 * "Tracing"): once per process, however many services it starts (tests start several). The API's
 * providers are registered for the life of the process, so the SDK is never shut down; a service
 * that closes flushes what its spans left in the batch.
 */
let started: Promise<void> | undefined;
/** The exporter the SDK batches into, kept so that a flush can wait for what it is still sending. */
let exporter: { forceFlush(): Promise<void> } | undefined;

/**
 * The OTLP exporter OTEL_EXPORTER_OTLP_TRACES_PROTOCOL (or OTEL_EXPORTER_OTLP_PROTOCOL) names, as
 * the SDK would choose it (http/protobuf by default, http/json, grpc); it reads its endpoint and
 * headers from the environment itself.
 */
async function otlpExporter() {
  const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || process.env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

/**
 * Starts the SDK (its exporter, batching and sampler from the OTEL_* variables), naming the node;
 * answers the function that flushes the spans not yet exported. Loaded only when wanted: a service
 * without tracing never loads the SDK.
 */
export async function startTracing(node: string): Promise<() => Promise<void>> {
  started ??= (async () => {
    const { NodeSDK, resources } = await import('@opentelemetry/sdk-node');
    const traceExporter = await otlpExporter();
    exporter = traceExporter;
    new NodeSDK({
      serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'openrail',
      resource: resources.resourceFromAttributes({ 'service.instance.id': node }),
      // The environment's own attributes (OTEL_RESOURCE_ATTRIBUTES) only: the process detector
      // would export the command line, and the host is named by the node.
      resourceDetectors: [resources.envDetector],
      instrumentations: [],
      // Batched as the OTEL_BSP_* variables say.
      traceExporter,
    }).start();
  })();
  await started;
  return flushTraces;
}

/**
 * Exports the spans still waiting in the batch, and waits for every export already under way: the
 * batch's own flush returns at once when its timer has just handed the spans to the exporter.
 */
async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  await (delegate as { forceFlush?: () => Promise<void> }).forceFlush?.();
  await exporter?.forceFlush();
}
