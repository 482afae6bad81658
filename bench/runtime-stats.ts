import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** Pauses of one kind of garbage collection, in milliseconds. */
export interface PauseStats {
  count: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** What a bench process's runtime did since the last reset: its GC pauses and how late its event loop ran. */
export interface RuntimeStats {
  scavenges: PauseStats;
  markCompacts: PauseStats;
  loopDelay: { p50Ms: number; p99Ms: number; p999Ms: number; maxMs: number };
}

/**
 * Observes this process's garbage collections (by kind) and event-loop delay, so the benchmark can
 * show where a latency tail comes from in the service and in the baseline alike.
 */
export function observeRuntime(): { stats(): RuntimeStats; reset(): void } {
  let scavenges: number[] = [];
  let markCompacts: number[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) markCompacts.push(entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
  return {
    stats: () => ({
      scavenges: pauses(scavenges),
      markCompacts: pauses(markCompacts),
      loopDelay: { p50Ms: ms(loop.percentile(50)), p99Ms: ms(loop.percentile(99)), p999Ms: ms(loop.percentile(99.9)), maxMs: ms(loop.max) },
    }),
    reset() {
      scavenges = [];
      markCompacts = [];
      loop.reset();
    },
  };
}

function pauses(durations: number[]): PauseStats {
  const sorted = [...durations].sort((a, b) => a - b);
  const at = (share: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0) * 10) / 10;
  return { count: sorted.length, totalMs: Math.round(sorted.reduce((sum, value) => sum + value, 0)), p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}
