import { ApiError, BadInput, NotFound } from '../../core/errors.js';
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

/** Finds the route for a method and raw path; 404 when none, 405 when only other methods match. */
export function matchRoute(routes: RouteIndex, method: string, rawPath: string) {
  const parts = rawPath.split('/').filter(Boolean).map((part, index) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw BadInput.field(`path segment ${index + 1}`, 'is not valid percent-encoding');
    }
  });
  const allowed = new Set<string>();
  for (const route of routes.get(prefixOf(parts)) ?? []) {
    const params = matchSegments(route.segments, parts);
    if (!params) continue;
    if (route.row.method === method) return { route, params };
    allowed.add(route.row.method);
  }
  if (allowed.size > 0) {
    throw new ApiError(405, 'METHOD_NOT_ALLOWED', `Use ${[...allowed].join(' or ')} on this path.`, [], { Allow: [...allowed].join(', ') });
  }
  throw new NotFound('The resource');
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
