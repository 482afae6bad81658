import { context, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';

/*
 * OpenTelemetry traces, on only when OTEL_EXPORTER_OTLP_ENDPOINT is set. `npm start` runs node
 * with `--import tracing-preload.js`, which (only then) registers the module hooks the
 * instrumentations need, starts the SDK (`startTracing`) and loads the instrumentations — http
 * (every request served and every outbound call), graphql (Apollo's parse, validate and
 * graphql-js execution) and pg (every SQL statement) — before the application's modules load.
 * The application adds what no instrumentation sees: the compiled (graphql-jit) execution of a
 * GraphQL operation, the REST route, and a span per pg-boss job. Off, nothing is loaded and every
 * helper here is a plain call.
 */

/**
 * Tracing is marked on the process, not in this module: the preload runs tsc's copy of this module
 * (dist/src) and the service the production bundle's own copy (tools/bundle.mjs).
 */
const TRACING_STARTED = Symbol.for('membership-api.tracing-started');
const processMarks = globalThis as { [TRACING_STARTED]?: true };

/** Whether traces are being recorded in this process. */
export function tracingEnabled(): boolean {
  return processMarks[TRACING_STARTED] === true;
}

/** Starts the SDK: spans batched to OTLP/HTTP at `endpoint`, W3C trace context in and out. */
export async function startTracing(env: NodeJS.ProcessEnv): Promise<void> {
  const [
    { TracerProvider, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler }, { AsyncLocalStorageContextManager }, { OTLPTraceExporter },
    { resourceFromAttributes }, { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace'), import('@opentelemetry/context-async-hooks'), import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'), import('@opentelemetry/core'),
  ]);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'membership-api' }),
    // OTEL_TRACES_SAMPLER_ARG: the share of new traces recorded (default all); a caller's sampled traceparent is always followed.
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplingRatio(env.OTEL_TRACES_SAMPLER_ARG)) }),
    // A bounded queue (2,048 spans, then dropped): a collector that is down never grows the heap.
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 2000), maxQueueSize: 2048 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Spans still batched are sent before the process exits.
  process.once('beforeExit', () => void provider.shutdown());
  processMarks[TRACING_STARTED] = true;
}

function samplingRatio(value: string | undefined): number {
  const ratio = value === undefined || value === '' ? 1 : Number(value);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error(`Invalid configuration: OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (is ${value})`);
  return ratio;
}

/** The trace id of the work in progress, for log lines and error answers; undefined when tracing is off. */
export function currentTraceId(): string | undefined {
  if (!tracingEnabled()) return undefined;
  return trace.getActiveSpan()?.spanContext().traceId;
}

/** `{ traceId }` of the work in progress for an error answer (problem+json, GraphQL extensions); empty when tracing is off. */
export function traceIdField(): { traceId?: string } {
  const traceId = currentTraceId();
  return traceId ? { traceId } : {};
}

/** Runs `work` in a span named `name` (its failure recorded on the span); when tracing is off, just runs it. */
export function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  if (!tracingEnabled()) return work();
  return trace.getTracer('membership-api').startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Names the request's server span after its route (`GET /api/vendors/{vendorid}`), as the http instrumentation cannot. */
export function nameServerSpan(method: string, route: string): void {
  if (!tracingEnabled()) return;
  const span = trace.getActiveSpan();
  span?.updateName(`${method} ${route}`);
  span?.setAttribute('http.route', route);
}
