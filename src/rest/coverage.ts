import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { areaRoutes } from '../http/area-routes.js';
import { routes } from './routes.js';
import type { RouteRow } from './route-table.js';

/** One documented operation of endpoints.json (the fields this project reads). */
export interface DocumentedOperation {
  area: string;
  method: string;
  path: string;
}

/** The documented operations, from the project's copy of the contract (spec/endpoints.json). */
export function documentedOperations(): DocumentedOperation[] {
  return JSON.parse(readFileSync(path.join(projectRoot(), 'spec', 'endpoints.json'), 'utf8')) as DocumentedOperation[];
}

/** The folder holding package.json, found upwards from this file (works from src/ and dist/). */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the route coverage module');
    dir = parent;
  }
  return dir;
}

const key = (method: string, path: string) => `${method} ${path}`;

/** Which documented operations the route table and the area routes serve, and any that match none. */
export function routeCoverage(rows: RouteRow[] = routes) {
  const documented = documentedOperations();
  const served = [...rows.filter((row) => !row.extension), ...areaRoutes.flatMap((area) => area.operations)];
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
