import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { observeRuntime } from './runtime-stats.js';

/**
 * The benchmark's baseline: a bare `node:http` + `pg` process — no framework, no ORM, no GraphQL —
 * answering the documented paths the benchmark calls with the same SQL the service runs and the
 * same response bytes (`npm run bench` checks the bytes before it measures). With
 * `RAW_AUTH=token` every request first runs the service's credential lookup (sha256 of the bearer
 * token, one SELECT); with `RAW_AUTH=none` it skips it and serves the tenant `RAW_TENANT_ID` as
 * staff. Run as its own process so that it shares nothing with the service.
 */
const authMode = process.env.RAW_AUTH === 'none' ? 'none' : 'token';
const fixedTenantId = Number(process.env.RAW_TENANT_ID ?? 0);
// RAW_POOL_MAX: the baseline's own pool size (`npm run bench -- --raw-pool N`), else the service's DATABASE_POOL_MAX.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.RAW_POOL_MAX || process.env.DATABASE_POOL_MAX || 10) });

interface Caller { tenant_id: number; roles: string[] }
interface VendorRow { id: number; name: string; website_url: string | null; audit_id: number }

async function caller(request: IncomingMessage): Promise<Caller | null> {
  if (authMode === 'none') return { tenant_id: fixedTenantId, roles: ['staff'] };
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token) return null;
  const { rows } = await pool.query<Caller & { expires_at: Date | null }>(
    `SELECT c.id, c.tenant_id, c.login_id, l.contact_id, l.email, c.kind, l.roles, c.expires_at, c.last_used_at
     FROM credential c JOIN login l ON l.id = c.login_id
     WHERE c.token_hash = $1 AND c.revoked_at IS NULL LIMIT 1`, [createHash('sha256').update(token).digest('hex')]);
  const row = rows[0];
  return row && (!row.expires_at || row.expires_at.getTime() > Date.now()) ? row : null;
}

/** Take and Skip of a FilterBase `options` query parameter (URL-encoded JSON). */
function page(url: URL): { take: number; skip: number } {
  const options = JSON.parse(url.searchParams.get('options') ?? '{}') as { Take?: number; Skip?: number };
  return { take: Math.min(Number(options.Take ?? 100), 1000), skip: Number(options.Skip ?? 0) };
}

const actions = (who: Caller) => (who.roles.includes('staff') ? ['Edit', 'Delete'] : []);
const vendorItem = (row: VendorRow, who: Caller) => ({ VendorId: row.id, Name: row.name, WebsiteUrl: row.website_url, Actions: actions(who) });

function json(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const tenantIds = new Map<string, number>();
const runtime = observeRuntime();

async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://raw');
  const path = url.pathname.toLowerCase();
  if (path === '/stats') {
    if (url.searchParams.has('reset')) runtime.reset();
    return json(response, { rssBytes: process.memoryUsage().rss, peakRssBytes: process.resourceUsage().maxRSS * 1024, runtime: runtime.stats(), tail: runtime.tail() });
  }
  if (request.method === 'POST' && path === '/api/callback/emailprovider1') {
    // The callback baseline: the raw body stored with one INSERT (no signature, no job).
    const body = await readBody(request);
    const key = url.searchParams.get('tenant') ?? '';
    let tenantId = tenantIds.get(key);
    if (tenantId === undefined) {
      const { rows } = await pool.query<{ id: number }>('SELECT id FROM tenant WHERE key = $1', [key]);
      if (!rows[0]) return void response.writeHead(401).end();
      tenantIds.set(key, (tenantId = rows[0].id));
    }
    await pool.query(
      `INSERT INTO provider_callback (tenant_id, receipt, provider, headers, body, state) VALUES ($1, $2, $3, $4, $5, 'queued')`,
      [tenantId, randomUUID(), 'emailprovider1', JSON.stringify({ 'content-type': String(request.headers['content-type']) }), body],
    );
    return void response.writeHead(200).end();
  }
  const who = await caller(request);
  if (!who) return void response.writeHead(401).end();
  if (request.method === 'GET' && path === '/api/vendors') {
    const { take, skip } = page(url);
    const { rows } = await pool.query<VendorRow>(
      'select "v0"."id", "v0"."name", "v0"."website_url", "v0"."audit_id" from "vendor" as "v0" where "v0"."tenant_id" = $1 order by "v0"."name" asc, "v0"."id" asc limit $2 offset $3',
      [who.tenant_id, take, skip]);
    return json(response, rows.map((row) => vendorItem(row, who)));
  }
  const vendorPath = /^\/api\/vendors\/(\d+)$/.exec(path);
  if (request.method === 'GET' && vendorPath) {
    const { rows } = await pool.query<VendorRow>(
      'select "v0"."id", "v0"."name", "v0"."website_url", "v0"."audit_id" from "vendor" as "v0" where "v0"."id" = $1 and "v0"."tenant_id" = $2 limit $3',
      [Number(vendorPath[1]), who.tenant_id, 1]);
    const row = rows[0];
    if (!row) return void response.writeHead(404).end();
    return json(response, { VendorId: row.id, Name: row.name, WebsiteUrl: row.website_url, AuditId: row.audit_id });
  }
  if (request.method === 'POST' && path === '/api/vendors') {
    const input = JSON.parse(await readBody(request)) as { VendorId: number; Name: string };
    const client = await pool.connect();
    try {
      const found = await client.query<VendorRow>('select "v0".* from "vendor" as "v0" where "v0"."tenant_id" = $1 and "v0"."id" = $2 limit $3', [who.tenant_id, input.VendorId, 1]);
      const current = found.rows[0];
      if (!current) return void response.writeHead(404).end();
      await client.query('begin');
      const updated = await client.query<{ audit_id: number }>(
        'update "vendor" set "name" = $1, "name_key" = $2, "website_url" = $3, "updated_at" = $4, "audit_id" = $5 where "id" = $6 and "audit_id" = $7 returning "audit_id"',
        [input.Name.trim(), input.Name.replace(/\s+/g, '').toLowerCase(), current.website_url, new Date(), current.audit_id + 1, current.id, current.audit_id]);
      await client.query('commit');
      if (!updated.rows[0]) return void response.writeHead(409).end();
      return json(response, vendorItem({ ...current, name: input.Name.trim() }, who));
    } finally {
      client.release();
    }
  }
  if (request.method === 'GET' && path === '/api/setup/termsofuse') {
    const { take, skip } = page(url);
    const { rows } = await pool.query<{ id: number; name: string }>(
      'select "t0"."id", "t0"."name" from "terms_of_use" as "t0" where "t0"."tenant_id" = $1 and "t0"."deleted_at" is null order by "t0"."name" asc, "t0"."id" asc limit $2 offset $3',
      [who.tenant_id, take, skip]);
    return json(response, rows.map((row) => ({ TermsOfUseId: row.id, Name: row.name })));
  }
  response.writeHead(404).end();
}

const server = createServer((request, response) => {
  const start = performance.now();
  response.on('finish', () => runtime.served(start, performance.now()));
  route(request, response).catch((error: unknown) => {
    // A request cut off by the load generator at the end of a run (its body unread) is no failure.
    if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') process.stderr.write(`raw server: ${String(error)}\n`);
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('raw server ready\n'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
