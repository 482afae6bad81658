import { ApiError, NotFound } from '../core/errors.js';

/** A documented operation's method and path template (`/api/vendors/{vendorid}`, `/ical/{tenantkey}/{calendarid}.ics`). */
export interface MethodAndPath {
  method: string;
  path: string;
}

/**
 * Which methods each documented path has — the route table's rows and the raw routes' together,
 * since one path may be served by both (`/api/images/image/{imageid}`: GET raw, POST and DELETE
 * in the table). A request with another method on a known path is a 405 naming them in `Allow`
 * (RFC 9110 §15.5.6), whichever part of the server it reaches: the gateway (`/api/*` with GET,
 * POST, DELETE, PUT or PATCH) or the not-found handler (any other method, any other path).
 * Templates match as the gateway matches: case-insensitively, a `{param}` standing for one
 * non-empty segment (or part of one), `{param=null}` optional, empty segments ignored.
 */
export class AllowedMethods {
  private readonly templates: { segments: TemplateSegment[]; methods: Set<string> }[] = [];

  constructor(operations: readonly MethodAndPath[]) {
    const byPath = new Map<string, Set<string>>();
    for (const { method, path } of operations) byPath.set(path.toLowerCase(), (byPath.get(path.toLowerCase()) ?? new Set()).add(method));
    for (const [path, methods] of byPath) this.templates.push({ segments: path.split('/').filter(Boolean).map(templateSegment), methods });
  }

  /** The methods documented on a raw request path (without its query string), in a fixed order; empty for an unknown path. */
  of(rawPath: string): string[] {
    const parts = rawPath.split('/').filter(Boolean).map(decodedSegment);
    const methods = new Set<string>();
    for (const template of this.templates) {
      if (matches(template.segments, parts)) for (const method of template.methods) methods.add(method);
    }
    return METHOD_ORDER.filter((method) => methods.has(method));
  }

  /** The refusal of `method` on a raw path no route served: 405 with `Allow` on a documented path, else 404. */
  refusal(method: string, rawPath: string): ApiError {
    const allowed = this.of(rawPath);
    if (allowed.length === 0) return new NotFound('The resource');
    return new ApiError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on this path; use ${allowed.join(' or ')}.`, [], { Allow: allowed.join(', ') });
  }
}

/** The order `Allow` lists methods in (documented operations use only these). */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** One segment of a template: a pattern of one decoded path segment; `{param=null}` may be missing at the end. */
interface TemplateSegment {
  pattern: RegExp;
  optional: boolean;
}

function templateSegment(segment: string): TemplateSegment {
  const source = segment.split(/(\{[^}]+\})/).map((part) => (part.startsWith('{') ? '.+' : escapeRegExp(part))).join('');
  return { pattern: new RegExp(`^${source}$`, 'is'), optional: /^\{[^}]+=null\}$/.test(segment) };
}

/** As the gateway matches: segment by segment, missing trailing segments only where optional. */
function matches(segments: TemplateSegment[], parts: string[]): boolean {
  if (parts.length > segments.length) return false;
  return segments.every((segment, index) => (parts[index] === undefined ? segment.optional : segment.pattern.test(parts[index])));
}

function decodedSegment(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
