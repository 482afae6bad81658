import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One documented operation of endpoints.json (the fields this project reads). */
export interface DocumentedOperation {
  area: string;
  method: string;
  path: string;
  params: { name: string; in: 'path' | 'query'; type: string }[];
}

/** The documented operations, from the project's copy of the contract (spec/endpoints.json). */
export function documentedOperations(): DocumentedOperation[] {
  return JSON.parse(readFileSync(path.join(projectRoot(), 'spec', 'endpoints.json'), 'utf8')) as DocumentedOperation[];
}

/** The documented query parameter names of each operation, by `METHOD /path`. */
export function documentedQueryNames(): Map<string, string[]> {
  return new Map(documentedOperations().map((operation) => [
    `${operation.method} ${operation.path}`,
    operation.params.filter((param) => param.in === 'query').map((param) => param.name),
  ]));
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
