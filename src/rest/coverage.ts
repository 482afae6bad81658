import { rawRoutes, routes } from '../areas/index.js';
import { documentedOperations } from './contract.js';
import type { RouteRow } from './route-table.js';

const key = (method: string, path: string) => `${method} ${path}`;

/** Which documented operations the route table and the area routes serve, and any that match none. */
export function routeCoverage(rows: RouteRow[] = routes) {
  const documented = documentedOperations();
  const served = [...rows.filter((row) => !row.extension), ...rawRoutes.flatMap((area) => area.operations).filter((operation) => !operation.extension)];
  const routed = new Set(served.map((row) => key(row.method, row.path)));
  const documentedKeys = new Set(documented.map((operation) => key(operation.method, operation.path)));
  const byArea = new Map<string, { routed: number; total: number }>();
  for (const operation of documented) {
    const area = byArea.get(operation.area) ?? { routed: 0, total: 0 };
    area.total++;
    if (routed.has(key(operation.method, operation.path))) area.routed++;
    byArea.set(operation.area, area);
  }
  return {
    routed: documented.filter((operation) => routed.has(key(operation.method, operation.path))).length,
    total: documented.length,
    byArea,
    undocumented: [...routed].filter((row) => !documentedKeys.has(row)),
  };
}
