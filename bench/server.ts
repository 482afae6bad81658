import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { startJobs } from '../src/core/jobs.js';
import { hashToken } from '../src/core/secrets.js';
import { createLogger } from '../src/core/logger.js';
import { openOrm } from '../src/db/orm.js';
import { callbackJobs } from '../src/services/callback-processing.js';

/**
 * The benchmark's server process: the real service, plus (in this process only) the raw
 * baseline routes — the same SQL through bare `pg`, the same JSON — and a stats route with the
 * statement count and peak RSS.
 */
const config = loadConfig();
const url = config.DATABASE_URL!;
let statements = 0;
const orm = await openOrm({ url, poolMax: config.DATABASE_POOL_MAX, onQuery: () => { statements++; } });
const pool = new pg.Pool({ connectionString: url, max: config.DATABASE_POOL_MAX });
const query = <T extends pg.QueryResultRow>(text: string, values: unknown[]) => {
  statements++;
  return pool.query<T>(text, values);
};
/** The service's own plain pool (AppDeps.pool, pipeline mode as in buildApp), its statements counted too. */
const appPool = new pg.Pool({ connectionString: url, max: config.DATABASE_POOL_MAX, pipeline: true, connectionTimeoutMillis: 10_000 });
appPool.on('connect', (client) => {
  const run = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    statements++;
    return run(...args);
  };
});
const log = createLogger(config);
// Callbacks are queued as in production, but not processed here: the benchmark measures ingestion.
const boss = await startJobs({ url, orm, log, jobs: callbackJobs(), worker: false });

interface Caller { tenant_id: number; roles: string[] }

/** The same credential lookup the service makes. */
async function caller(authorization: string | undefined): Promise<Caller | null> {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!token) return null;
  const { rows } = await query<Caller & { expires_at: Date | null }>(
    `SELECT c.tenant_id, c.expires_at, l.roles FROM credential c JOIN login l ON l.id = c.login_id
     WHERE c.token_hash = $1 AND c.revoked_at IS NULL LIMIT 1`, [hashToken(token)]);
  const row = rows[0];
  return row && (!row.expires_at || row.expires_at.getTime() > Date.now()) ? row : null;
}

interface VendorRow { id: number; name: string; website_url: string | null; audit_id: number }

const item = (row: VendorRow, who: Caller) => ({ VendorId: row.id, Name: row.name, WebsiteUrl: row.website_url, Actions: who.roles.includes('staff') ? ['Edit', 'Delete'] : [] });

async function baseline(server: FastifyInstance): Promise<void> {
  server.get('/__bench/raw/vendors', async (request, reply) => {
    const who = await caller(request.headers.authorization);
    if (!who) return reply.code(401).send();
    const take = Math.min(Number((request.query as { take?: string }).take ?? 100), 1000);
    const { rows } = await query<VendorRow>(
      'SELECT id, name, website_url, audit_id FROM vendor WHERE tenant_id = $1 ORDER BY name ASC, id ASC LIMIT $2 OFFSET 0', [who.tenant_id, take]);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(rows.map((row) => item(row, who))));
  });
  server.get('/__bench/raw/vendors/:id', async (request, reply) => {
    const who = await caller(request.headers.authorization);
    if (!who) return reply.code(401).send();
    const { rows } = await query<VendorRow>('SELECT id, name, website_url, audit_id FROM vendor WHERE tenant_id = $1 AND id = $2 LIMIT 1', [who.tenant_id, Number((request.params as { id: string }).id)]);
    const row = rows[0];
    if (!row) return reply.code(404).send();
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ VendorId: row.id, Name: row.name, WebsiteUrl: row.website_url, AuditId: row.audit_id }));
  });
  server.post('/__bench/raw/vendors', async (request, reply) => {
    const who = await caller(request.headers.authorization);
    if (!who) return reply.code(401).send();
    const body = request.body as { VendorId: number; Name: string };
    const client = await pool.connect();
    try {
      const found = await client.query<VendorRow>('SELECT id, name, website_url, audit_id FROM vendor WHERE tenant_id = $1 AND id = $2 LIMIT 1', [who.tenant_id, body.VendorId]);
      if (!found.rows[0]) return reply.code(404).send();
      await client.query('BEGIN');
      const { rows } = await client.query<VendorRow>(
        `UPDATE vendor SET name = $1, name_key = $2, updated_at = now(), audit_id = audit_id + 1
         WHERE id = $3 AND audit_id = $4 RETURNING id, name, website_url, audit_id`,
        [body.Name.trim(), body.Name.replace(/\s+/g, '').toLowerCase(), body.VendorId, found.rows[0].audit_id]);
      await client.query('COMMIT');
      statements += 4;
      return reply.type('application/json; charset=utf-8').send(JSON.stringify(item(rows[0] ?? found.rows[0], who)));
    } finally {
      client.release();
    }
  });
  // The callback baseline: the same raw body stored with one INSERT into the same table (no signature, no job, no transaction).
  const tenantIds = new Map<string, number>();
  await server.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    scope.post('/__bench/raw/callback', async (request, reply) => {
      const key = String((request.query as { tenant?: string }).tenant);
      let tenantId = tenantIds.get(key);
      if (tenantId === undefined) {
        const { rows } = await query<{ id: number }>('SELECT id FROM tenant WHERE key = $1', [key]);
        if (!rows[0]) return reply.code(401).send();
        tenantIds.set(key, (tenantId = rows[0].id));
      }
      await query(
        `INSERT INTO provider_callback (tenant_id, receipt, provider, headers, body, state) VALUES ($1, $2, $3, $4, $5, 'queued')`,
        [tenantId, randomUUID(), 'emailprovider1', JSON.stringify({ 'content-type': String(request.headers['content-type']) }), (request.body as Buffer).toString('utf8')],
      );
      return reply.code(200).send();
    });
  });
  server.get('/__bench/stats', async () => ({
    statements,
    rssBytes: process.memoryUsage().rss,
    memory: process.memoryUsage(),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  }));
}

const app = await buildApp({ config, orm, jobs: boss, pool: appPool, log, configure: baseline });
await app.server.listen({ host: config.HOST, port: config.PORT });
process.stdout.write('bench server ready\n');
process.on('SIGTERM', () => {
  void app.close().then(() => boss.stop({ graceful: false, timeout: 2000 })).then(() => Promise.all([pool.end(), appPool.end()])).then(() => orm.close()).then(() => process.exit(0));
});
