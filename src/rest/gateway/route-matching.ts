import { BadInput } from '../../core/errors.js';
import type { AllowedMethods } from '../allowed-methods.js';
import type { CompiledRoute, Segment } from './routes.js';

/**
 * The routes that can match a path, by its first two segments (lower-cased): every documented
 * path starts with literals (`/api/vendors`, `/api/setup/...`), so a request is checked against
 * a handful of routes instead of the whole table.
 */
export type RouteIndex = Map<string, CompiledRoute[]>;

const prefixOf = (parts: string[]) => parts.slice(0, 2).join('/').toLowerCase();

export function indexRoutes(routes: CompiledRoute[]): RouteIndex {
  const index: RouteIndex = new Map();
  for (const route of routes) {
    const literals = route.segments.slice(0, 2).map((segment) => ('literal' in segment ? segment.literal : null));
    if (literals.includes(null)) throw new Error(`Route ${route.row.path}: its first two segments must be literal`);
    const key = literals.join('/');
    index.set(key, [...(index.get(key) ?? []), route]);
  }
  return index;
}

/**
 * Finds the route for a method and raw path (HEAD follows GET); when none serves that method,
 * 405 naming the methods the path has (route table and raw routes: `allowed`), or 404.
 */
export function matchRoute(routes: RouteIndex, allowed: AllowedMethods, method: string, rawPath: string) {
  const parts = rawPath.split('/').filter(Boolean).map((part, index) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw BadInput.field(`path segment ${index + 1}`, 'is not valid percent-encoding');
    }
  });
  const wanted = method === 'HEAD' ? 'GET' : method;
  for (const route of routes.get(prefixOf(parts)) ?? []) {
    if (route.row.method !== wanted) continue;
    const params = matchSegments(route.segments, parts);
    if (params) return { route, params };
  }
  throw allowed.refusal(method, rawPath);
}

/** A matched path parameter: its value, and its documented name (for messages), by argument. */
export type PathParams = Map<string, { value: string; documented: string }>;

function matchSegments(segments: Segment[], parts: string[]): PathParams | null {
  if (parts.length > segments.length) return null;
  const params: PathParams = new Map();
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index];
    const part = parts[index];
    if (part === undefined) {
      if ('param' in segment && segment.optional) continue;
      return null;
    }
    if ('literal' in segment) {
      if (segment.literal !== part.toLowerCase()) return null;
    } else if (!(segment.optional && part === 'null')) {
      params.set(segment.arg, { value: part, documented: segment.param });
    }
  }
  return params;
}
