import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives back the memory start-up used and no longer needs. Building the schema, the ORM metadata
 * and the routes grows V8's young generation to its largest semi-spaces (`--max-semi-space-size`,
 * 2 × 16 MB) and leaves garbage in the old generation; an idle process runs no collection, so it
 * would keep ~30 MB of empty heap in its RSS until the first load (BENCHMARKS.md, "Memory at
 * rest"). One full collection of V8's memory-reducing kind (the "last resort" flavour, which also
 * shrinks the young generation) returns it; under load the young generation grows again as
 * before. Called once, right after start-up: one pause of a few full collections (about 0.2 s
 * on a quiet machine, a second at load average 20 on two cores), before traffic usually comes.
 * `gc` is reached the way jest's leak detector does: the flag is set for contexts made from now
 * on, so our own global never gets a `gc`.
 */
export function releaseStartupMemory(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
