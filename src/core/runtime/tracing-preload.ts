/*
 * Loaded before the application (`node --import ./dist/src/core/runtime/tracing-preload.js`, as
 * `npm start` does). With OTEL_EXPORTER_OTLP_ENDPOINT set it starts tracing and instruments
 * http, graphql and pg before any of them is imported; without, it does nothing at all.
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  const { register } = await import('node:module');
  // The ES modules (graphql's) are patched through this loader hook; CommonJS ones (pg, http) without it.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const { startTracing } = await import('./tracing.js');
  await startTracing(process.env);
  const [{ registerInstrumentations }, { HttpInstrumentation }, { GraphQLInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation'), import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-graphql'), import('@opentelemetry/instrumentation-pg'),
  ]);
  registerInstrumentations({
    instrumentations: [
      new HttpInstrumentation(),
      // Resolver spans for every field of every row would dwarf the request: operations only.
      new GraphQLInstrumentation({ ignoreTrivialResolveSpans: true, depth: 0, mergeItems: true }),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
}
export {};
