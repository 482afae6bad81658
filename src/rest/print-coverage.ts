import { routeCoverage } from './coverage.js';

/** `npm run coverage:routes`: how many documented operations the route table serves, per area. */
const coverage = routeCoverage();
for (const [area, counts] of coverage.byArea) process.stdout.write(`${area.padEnd(36)} ${String(counts.routed).padStart(3)}/${counts.total}\n`);
process.stdout.write(`\n${coverage.routed} of ${coverage.total} documented operations routed\n`);
if (coverage.undocumented.length) {
  process.stdout.write(`Rows matching no documented operation: ${coverage.undocumented.join(', ')}\n`);
  process.exitCode = 1;
}
