import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import eventLoopLag from 'prom-client/lib/metrics/eventLoopLag.js';
import heapSizeAndUsed from 'prom-client/lib/metrics/heapSizeAndUsed.js';
import heapSpacesSizeAndUsed from 'prom-client/lib/metrics/heapSpacesSizeAndUsed.js';
import osMemoryHeap from 'prom-client/lib/metrics/osMemoryHeap.js';
import processCpuTotal from 'prom-client/lib/metrics/processCpuTotal.js';
import processHandles from 'prom-client/lib/metrics/processHandles.js';
import processMaxFileDescriptors from 'prom-client/lib/metrics/processMaxFileDescriptors.js';
import processOpenFileDescriptors from 'prom-client/lib/metrics/processOpenFileDescriptors.js';
import processRequests from 'prom-client/lib/metrics/processRequests.js';
import processResources from 'prom-client/lib/metrics/processResources.js';
import processStartTime from 'prom-client/lib/metrics/processStartTime.js';
import version from 'prom-client/lib/metrics/version.js';

/**
 * prom-client's default process metrics (`collectDefaultMetrics`' list, in its order) but its GC
 * metric: that one observes GC through a process-wide PerformanceObserver that is never
 * disconnected, so every instance that registered it stayed reachable for the life of the process
 * (in the tests, each test file's whole module graph: a jest worker grew by tens of MB a file and
 * took longer to exit than jest waits for). `Metrics` observes GC itself and disconnects on close.
 */
const PROCESS_METRICS = [
  processCpuTotal, processStartTime, osMemoryHeap, processOpenFileDescriptors, processMaxFileDescriptors, eventLoopLag,
  processResources, processHandles, processRequests, heapSizeAndUsed, heapSpacesSizeAndUsed, version,
];

/** GC kinds as prom-client's `nodejs_gc_duration_seconds` labels them. */
const GC_KINDS: Record<number, string> = {
  [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * Prometheus metrics of one application instance (its own registry, so that several instances
 * in one process — the tests — never share counters): requests by documented operation (the
 * route template, never the raw path), GraphQL operations by root field, GraphQL's caches, the database pool, the job
 * queues and callback ingestion, plus Node's process metrics.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly requests = new Counter({
    name: 'http_requests_total', help: 'HTTP requests by operation (method and route template) and status.',
    labelNames: ['operation', 'status'] as const, registers: [this.registry],
  });

  readonly requestSeconds = new Histogram({
    name: 'http_request_duration_seconds', help: 'HTTP request latency by operation (method and route template).',
    labelNames: ['operation'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [this.registry],
  });

  readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total', help: 'GraphQL operations by the root field they select (multiple, other), type and outcome.',
    labelNames: ['operation', 'type', 'outcome'] as const, registers: [this.registry],
  });

  readonly callbacksStored = new Counter({
    name: 'provider_callbacks_stored_total', help: 'Inbound provider callbacks stored (and acknowledged) by provider.',
    labelNames: ['provider'] as const, registers: [this.registry],
  });

  private readonly gcObserver: PerformanceObserver;

  constructor(pool: pg.Pool, jobs: PgBoss | null) {
    for (const register of PROCESS_METRICS) register(this.registry, { eventLoopMonitoringPrecision: 10 });
    const gcSeconds = new Histogram({
      name: 'nodejs_gc_duration_seconds', help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
      labelNames: ['kind'] as const, buckets: [0.001, 0.01, 0.1, 1, 2, 5], registers: [this.registry],
    });
    this.gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcSeconds.observe({ kind: GC_KINDS[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] }, entry.duration / 1000);
    });
    this.gcObserver.observe({ entryTypes: ['gc'] });
    new Gauge({
      name: 'db_pool_connections', help: 'Connections of the plain database pool (ingestion, rate limits, idempotency) by state.',
      labelNames: ['state'] as const, registers: [this.registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    if (jobs) {
      new Gauge({
        name: 'job_queue_jobs', help: 'Jobs per queue by state (ready, active, deferred, failed).',
        labelNames: ['queue', 'state'] as const, registers: [this.registry],
        async collect() {
          // A scrape while the database is away reports no queue figures rather than failing.
          const queues = await jobs.getQueues().catch(() => []);
          for (const queue of queues) {
            this.set({ queue: queue.name, state: 'ready' }, queue.readyCount);
            this.set({ queue: queue.name, state: 'active' }, queue.activeCount);
            this.set({ queue: queue.name, state: 'deferred' }, queue.deferredCount);
            this.set({ queue: queue.name, state: 'failed' }, queue.failedCount);
          }
        },
      });
    }
  }

  /**
   * Reports GraphQL's per-document caches (http/graphql-caches.ts): entries and estimated heap
   * bytes against their limits, by cache.
   */
  observeGraphqlCaches(figures: () => CacheFigures[]): void {
    const gauges: [string, string, (cache: CacheFigures) => number][] = [
      ['graphql_cache_entries', 'Entries of a GraphQL per-document cache.', (cache) => cache.entries],
      ['graphql_cache_max_entries', 'Most entries a GraphQL per-document cache keeps.', (cache) => cache.maxEntries],
      ['graphql_cache_bytes', 'Estimated heap bytes of the entries of a GraphQL per-document cache.', (cache) => cache.bytes],
      ['graphql_cache_max_bytes', 'Most estimated heap bytes a GraphQL per-document cache keeps.', (cache) => cache.maxBytes],
    ];
    for (const [name, help, read] of gauges) {
      new Gauge({
        name, help, labelNames: ['cache'] as const, registers: [this.registry],
        collect() {
          for (const cache of figures()) this.set({ cache: cache.cache }, read(cache));
        },
      });
    }
  }

  /** Stops observing GC (the one process-wide registration), so a closed instance can be collected. */
  close(): void {
    this.gcObserver.disconnect();
  }
}

/** What a bounded cache holds and may hold, for the `graphql_cache_*` gauges. */
export interface CacheFigures { cache: string; entries: number; maxEntries: number; bytes: number; maxBytes: number }

const operationLabels = new WeakMap<FastifyRequest, string>();

/** Names the documented operation a request reached (the gateway knows it; Fastify's route is `/api/*`). */
export function labelOperation(request: FastifyRequest, operation: string): void {
  operationLabels.set(request, operation);
}

/** The operation label of a request: as labelled, else its method and Fastify route template, else `unmatched`. */
export function operationOf(request: FastifyRequest): string {
  const labelled = operationLabels.get(request);
  if (labelled) return labelled;
  const template = request.routeOptions.url;
  return template && template !== '/api/*' && template !== '*' ? `${request.method} ${template}` : 'unmatched';
}
