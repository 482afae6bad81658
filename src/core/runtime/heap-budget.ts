import v8 from 'node:v8';

/**
 * The bytes a cache may hold: `megabytes` when set (its config setting), else `heapShare` of V8's
 * heap limit (240 MB under `npm start`'s flags: 192 MB old space and three 16 MB semi-spaces), so
 * that the cache grows and shrinks with the heap it lives in.
 */
export function heapBudgetBytes(megabytes: number | undefined, heapShare: number): number {
  return megabytes ? megabytes * 1024 * 1024 : Math.floor(v8.getHeapStatistics().heap_size_limit * heapShare);
}
