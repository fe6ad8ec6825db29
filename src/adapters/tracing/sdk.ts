import { ProxyTracerProvider, trace } from '@opentelemetry/api';

/**
 * Starts the OpenTelemetry SDK that exports the spans core/tracing.ts makes (docs/operations.md,
 * "Tracing"): once per process, however many services it starts (tests start several). The API's
 * providers are registered for the life of the process, so the SDK is never shut down; a service
 * that closes flushes what its spans left in the batch.
 */
let started: Promise<void> | undefined;

/**
 * Starts the SDK (its exporter, batching and sampler from the OTEL_* variables), naming the node;
 * answers the function that flushes the spans not yet exported. Loaded only when wanted: a service
 * without tracing never loads the SDK.
 */
export async function startTracing(node: string): Promise<() => Promise<void>> {
  started ??= (async () => {
    const { NodeSDK, resources } = await import('@opentelemetry/sdk-node');
    new NodeSDK({
      serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'openrail',
      resource: resources.resourceFromAttributes({ 'service.instance.id': node }),
      // The environment's own attributes (OTEL_RESOURCE_ATTRIBUTES) only: the process detector
      // would export the command line, and the host is named by the node.
      resourceDetectors: [resources.envDetector],
      instrumentations: [],
    }).start();
  })();
  await started;
  return flushTraces;
}

/** Exports the spans still waiting in the batch. */
async function flushTraces(): Promise<void> {
  const provider = trace.getTracerProvider();
  const delegate = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  await (delegate as { forceFlush?: () => Promise<void> }).forceFlush?.();
}
