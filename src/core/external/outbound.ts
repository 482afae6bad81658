import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Requests to addresses staff (or a tenant) can set — a captcha verifier today, webhooks next.
 * Such a URL must never reach the service's own network: loopback, private, link-local (the cloud
 * metadata service) and the other non-public ranges are refused twice, when the URL is saved
 * (`outboundUrlProblem`, so the mistake is a 400 naming the field) and when connecting
 * (`outboundRequest`: the host name is resolved, every address checked, and the connection made to
 * a checked address, so a name that resolves elsewhere later — DNS rebinding — gains nothing).
 */
export interface OutboundPolicy {
  /** http:, and loopback/private/link-local addresses, allowed (development and tests: OUTBOUND_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The host names a URL may name (lower case); null: any public host. */
  hosts: readonly string[] | null;
  /** Resolves a host name (default: the system's resolver, as `dns.lookup` with `all`). */
  resolve?: (hostname: string) => Promise<dns.LookupAddress[]>;
}

/** An outbound request refused by the policy; nothing was sent. */
export class OutboundRefused extends Error {
  override name = 'OutboundRefused';
}

/** Address ranges that are not the public internet (IANA special-purpose registries); IPv4-mapped IPv6 addresses match the IPv4 ranges. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  // IPv4-compatible (and with it :: and ::1), discard, documentation, 6to4 (embeds any IPv4), unique-local, link-local, site-local, multicast.
  ['::', 96], ['100::', 64], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP address) is outside the public internet; anything not an address counts as outside. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Why `url` may not be requested under `policy` (checked without DNS, when it is saved); null when it may. */
export function outboundUrlProblem(url: string, policy: OutboundPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.protocol !== 'https:' && !(policy.allowPrivate && parsed.protocol === 'http:')) return 'must be an https URL';
  if (parsed.username || parsed.password) return 'must not carry a user name or password';
  const host = hostOf(parsed);
  if (!policy.allowPrivate && isIP(host) && isNonPublicAddress(host)) return 'must not point at a loopback, private or link-local address';
  if (policy.hosts && !policy.hosts.includes(host)) return `must be on one of the allowed hosts (${policy.hosts.join(', ')})`;
  return null;
}

export interface OutboundResponse {
  status: number;
  body: Buffer;
}

/**
 * One request to `url` under `policy`: refused (OutboundRefused, nothing sent) when the URL or any
 * address its host resolves to is not allowed; no redirects followed; the response body read up to
 * `maxResponseBytes` (more is an error), the whole exchange within `timeoutMs`.
 */
export function outboundRequest(
  url: string,
  request: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string; timeoutMs: number; maxResponseBytes: number },
  policy: OutboundPolicy,
): Promise<OutboundResponse> {
  const problem = outboundUrlProblem(url, policy);
  if (problem) return Promise.reject(new OutboundRefused(`${url}: ${problem}`));
  const parsed = new URL(url);
  const client = parsed.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(parsed, {
      method: request.method,
      headers: request.headers,
      // A connection of its own: a pooled one may have been opened under another policy.
      agent: false,
      lookup: checkedLookup(policy),
      signal: AbortSignal.timeout(request.timeoutMs),
    }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > request.maxResponseBytes) {
          // Settled here: the connection's own end or error may come first once it is cut.
          reject(new Error(`the response is larger than ${request.maxResponseBytes} bytes`));
          outgoing.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/**
 * The address to connect to for `hostname` under `policy`, for clients that take an address
 * rather than a lookup function (SMTP): every address the name resolves to must be allowed.
 */
export function allowedAddressOf(hostname: string, policy: OutboundPolicy): Promise<string> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (policy.hosts && !policy.hosts.includes(host)) return Promise.reject(new OutboundRefused(`${host} is not one of the allowed hosts`));
  if (isIP(host)) {
    return !policy.allowPrivate && isNonPublicAddress(host)
      ? Promise.reject(new OutboundRefused(`${host} is not a public address`))
      : Promise.resolve(host);
  }
  return new Promise((resolve, reject) => {
    checkedLookup(policy)(host, {}, (error, address) => (error ? reject(error) : resolve(address as string)));
  });
}

/**
 * The connection's DNS lookup: every address the name resolves to must be allowed (else the
 * connection fails before it is opened), and the connection goes to those checked addresses.
 * (An IP literal is never looked up: `outboundUrlProblem` checked it.)
 */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  const resolve = policy.resolve ?? ((hostname: string) => dns.promises.lookup(hostname, { all: true }));
  return (hostname, options, callback) => {
    resolve(hostname).then((addresses) => {
      const refused = policy.allowPrivate ? undefined : addresses.find((entry) => isNonPublicAddress(entry.address));
      if (refused || !addresses.length) {
        const reason = refused ? `resolves to ${refused.address}, which is not a public address` : 'resolves to no address';
        throw new OutboundRefused(`${hostname} ${reason}`);
      }
      const usable = options.family ? addresses.filter((entry) => entry.family === options.family) : addresses;
      if (!usable.length) throw new OutboundRefused(`${hostname} has no IPv${options.family} address`);
      if (options.all) (callback as (error: null, addresses: dns.LookupAddress[]) => void)(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    }).catch((error: NodeJS.ErrnoException) => callback(error, '', 4));
  };
}

function hostOf(url: URL): string {
  // An IPv6 literal's brackets are not part of the address.
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}
