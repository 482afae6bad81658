import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

/** The REST API, typed from its OpenAPI document: paths, parameters, bodies and answers checked by the compiler. */
export type MembershipApiClient = Client<paths>;

/**
 * A client for one service and credential (a partner integration's API key, or a session token).
 * Every call sends `Authorization: Bearer <token>`; pass `fetch` to use another implementation.
 */
export function createMembershipApiClient(options: { baseUrl: string; token: string; fetch?: typeof fetch }): MembershipApiClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
