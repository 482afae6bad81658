// prom-client's default process metrics, one module each (its `collectDefaultMetrics` calls them in
// a loop); prom-client ships typings for its entry point only. See PROCESS_METRICS in ./metrics.ts.
declare module 'prom-client/lib/metrics/*.js' {
  import type { Registry } from 'prom-client';
  const registerMetric: (registry: Registry, config: { eventLoopMonitoringPrecision?: number }) => void;
  export default registerMetric;
}
