import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

/** Pauses of one kind of garbage collection, in milliseconds. */
export interface PauseStats {
  count: number;
  totalMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Server-side times (request read to response sent) of requests in one class, in milliseconds. */
export interface ServedStats {
  count: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * The requests served since the last `tail()`, split by the worst GC pause they overlapped: none,
 * a scavenge, or a mark-compact. Shows how much of a latency tail the collector makes.
 */
export interface TailSplit {
  clean: ServedStats;
  scavenge: ServedStats;
  markCompact: ServedStats;
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
export function observeRuntime(): { stats(): RuntimeStats; reset(): void; served(startMs: number, endMs: number): void; tail(): TailSplit } {
  let scavenges: number[] = [];
  let markCompacts: number[] = [];
  // Since the last tail(): pauses as [start, end, 1 for a mark-compact else 0] and requests as [start, end] (performance.now() times).
  let pauseSpans: number[] = [];
  let requestSpans: number[] = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges.push(entry.duration);
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) markCompacts.push(entry.duration);
      else continue;
      pauseSpans.push(entry.startTime, entry.startTime + entry.duration, kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 1 : 0);
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
    served(startMs, endMs) {
      requestSpans.push(startMs, endMs);
    },
    tail() {
      const split = splitByPauses(requestSpans, pauseSpans);
      requestSpans = [];
      pauseSpans = [];
      return split;
    },
  };
}

/** Classifies each request by the worst pause that overlapped it (a few hundred pauses per scenario: a plain scan). */
function splitByPauses(requests: number[], pauses: number[]): TailSplit {
  const classes: [number[], number[], number[]] = [[], [], []];
  for (let index = 0; index < requests.length; index += 2) {
    const start = requests[index];
    const end = requests[index + 1];
    let worst = 0;
    for (let pause = 0; pause < pauses.length; pause += 3) {
      if (pauses[pause] < end && pauses[pause + 1] > start) worst = Math.max(worst, 1 + pauses[pause + 2]);
    }
    classes[worst].push(end - start);
  }
  const [clean, scavenge, markCompact] = classes.map(servedStats);
  return { clean, scavenge, markCompact };
}

function servedStats(durations: number[]): ServedStats {
  const sorted = [...durations].sort((a, b) => a - b);
  return { count: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

function pauses(durations: number[]): PauseStats {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    count: sorted.length,
    totalMs: Math.round(sorted.reduce((sum, value) => sum + value, 0)),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: percentile(sorted, 1),
  };
}

/** The value at `share` (0–1) of ascending `sorted` milliseconds, to 0.1 ms; 0 when empty. */
function percentile(sorted: readonly number[], share: number): number {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0) * 10) / 10;
}
