/**
 * The REST route table: every documented operation we serve, as one declarative row that names
 * the GraphQL field carrying it. The gateway (gateway/) is the only code that turns these rows
 * into HTTP routes; the OpenAPI document and the route-coverage count are generated from them.
 */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteRow {
  method: HttpMethod;
  /** Exactly as documented, e.g. `/api/vendors/{vendorid}`; a `{name}` segment feeds argument `name`. */
  path: string;
  /** The GraphQL field that does the work: `Query.vendors`, `Mutation.saveVendor`. */
  field: `Query.${string}` | `Mutation.${string}`;
  /** The argument that receives the whole JSON body (a model or an array), unwrapped. */
  body?: string;
  /** Arguments the route itself fixes (e.g. the type of a fixed-type lookup): argument → value; not read from the request. */
  args?: Record<string, string | number | boolean>;
  /**
   * The input-object argument whose fields come one by one from the query string (a GET
   * documented with a body model: `?Take=10&Filter=x`). Fastify does not read GET bodies, so such a
   * GET takes its model from the query string only.
   */
  queryModel?: string;
  /** Query parameter names that differ from argument names: documented name → argument. */
  query?: Record<string, string>;
  /** Answer 200 with an empty body (HttpResponseMessage, or a "200 only" whose body means nothing). */
  emptyResponse?: true;
  /**
   * The field answers a FileDownload (schema/file-download.ts): the response is the file itself
   * (its bytes, Content-Type and an attachment Content-Disposition), as a documented
   * HttpResponseMessage download.
   */
  download?: true;
  /** The media types a `download` answers (the FileDownload's ContentType); application/octet-stream when not said. */
  downloadMediaTypes?: readonly string[];
  /**
   * The operation answers the documented PublicApiResponse (public event registration): a failure
   * is then a problem document that is also a PublicApiResponse (`Status`, `StatusMessage`,
   * `Data: null`), with Status the HTTP status.
   */
  publicApiResponse?: true;
  /**
   * A smaller body limit (bytes) than API_BODY_LIMIT_BYTES for an operation whose documented body
   * is small and whose callers need no credential (sign-in): a larger body is a 413 as soon as
   * its Content-Length says so, or as soon as that many bytes have arrived.
   */
  bodyLimit?: number;
  /** Our own addition, not one of the documented operations (listed in the OpenAPI all the same). */
  extension?: true;
  summary?: string;
}
