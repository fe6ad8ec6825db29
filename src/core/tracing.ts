import { type Attributes, context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/**
 * OpenTelemetry traces (docs/operations.md, "Tracing"), the API side: what every part of the
 * service calls to make its spans (the SDK is started by adapters/tracing/sdk.ts). Off unless the standard variables ask for
 * them: an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`),
 * with `OTEL_SDK_DISABLED` not `true` and `OTEL_TRACES_EXPORTER` not `none`. The SDK reads every
 * other `OTEL_*` variable itself (protocol, headers, batching, sampler, service name).
 *
 * The service's code makes its spans through the API alone (this file's helpers). With no SDK
 * started the API's tracer makes no spans at all, so tracing off costs one call per span site.
 * Spans carry only what names the operation: a method and route template, a status, a statement's
 * kind, a host, a job's name. Never a header, a query string, a body, an address or an identifier a
 * caller chose, so no secret, token, code or personal data reaches a trace.
 */
export const tracingWanted = (env: Record<string, string | undefined>): boolean =>
  env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' &&
  (env.OTEL_TRACES_EXPORTER ?? 'otlp').trim().toLowerCase() !== 'none' &&
  Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());

const tracer = () => trace.getTracer('openrail');

/**
 * Runs `work` in a span named `name` under the active one, ending it when `work` settles: the
 * status is an error when it throws (by the error's class only, never its message).
 */
export function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * A database statement's span under the active one, or undefined when nothing is recorded here
 * (then the statement costs no span at all). Named by the statement's kind (its first keyword), never
 * its text or its values.
 */
export function statementSpan(system: 'postgresql' | 'sqlite', sql: string): Span | undefined {
  const active = trace.getActiveSpan();
  if (!active?.isRecording()) return undefined;
  const operation = /^\s*([a-z]+)/i.exec(sql)?.[1]?.toLowerCase() ?? 'statement';
  return tracer().startSpan(`db ${operation}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': system, 'db.operation.name': operation },
  });
}

/** Ends a statement's span, an error when the statement failed (named by its class only). */
export function endStatement(span: Span | undefined, err?: unknown): void {
  if (!span) return;
  if (err !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'error' });
  span.end();
}

/** Whether any span is being recorded here (tracing on, this trace sampled): a caller skips its own work when not. */
export const recording = (): boolean => trace.getActiveSpan()?.isRecording() === true;

/** A server span for an incoming request, child of the caller's `traceparent` when it sent one. */
export function serverSpan(method: string, headers: Record<string, unknown>): { span: Span; run<T>(fn: () => T): T } {
  const parent = propagation.extract(context.active(), headers);
  const span = tracer().startSpan(
    `HTTP ${method}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
    parent,
  );
  const active = trace.setSpan(parent, span);
  return { span, run: (fn) => context.with(active, fn) };
}

/** The W3C trace context of the active span, as headers for an outbound request (none when not tracing). */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

export { SpanKind, SpanStatusCode };
