import 'reflect-metadata';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from './core/config.js';
import { startJobs } from './core/runtime/jobs.js';
import { createLogger } from './core/runtime/logger.js';
import { progressReporter } from './core/runtime/progress.js';
import { callbackJobs, queueCallbacks } from './services/callbacks/callback-processing.js';
import { setCallbackSecret } from './services/callbacks/callbacks.js';
import { lapseEndedMemberships } from './services/memberships/lapse.js';
import { createApiKey, createLogin, createSession, createTenant, enableLogin, findLogin, findTenant, revokeApiKey } from './services/login/identity.js';
import { describeSeed, SEED_SIZES, seedTenant, type SeedSize } from './services/seed/seed.js';
import { writeMigrationIndex } from './db/migration-index.js';
import type { Runtime } from './runtime.js';

/** The CLI's commands (src/cli.ts parses the arguments and loads this module only to run one, so --help stays fast). */

const MIGRATIONS_FOLDER = 'src/db/migrations';

/** A mistake in how the command was called (exit code 2), as opposed to a failure (1). */
export class UsageError extends Error {}

export type Options = Record<string, string | undefined>;

export const commands: Record<string, (runtime: Runtime, options: Options) => Promise<string>> = {
  async 'tenant create'(runtime, options) {
    const tenant = await createTenant(runtime.orm.em.fork(), { key: required(options, 'key'), name: required(options, 'name'), domain: options.domain });
    return `tenant ${tenant.key} created (id ${tenant.id})`;
  },
  async 'login create'(runtime, options) {
    const em = runtime.orm.em.fork();
    const tenant = await findTenant(em, required(options, 'tenant'));
    const login = await createLogin(em, tenant, {
      email: required(options, 'email'), role: required(options, 'role'),
      firstName: options['first-name'], lastName: options['last-name'],
    });
    return `login ${login.email} created (id ${login.id}, role ${login.roles.join(',')})`;
  },
  async 'login enable'(runtime, options) {
    const em = runtime.orm.em.fork();
    const login = await findLogin(em, await findTenant(em, required(options, 'tenant')), required(options, 'email'));
    await enableLogin(em, login);
    return `login ${login.email} enabled`;
  },
  async token(runtime, options) {
    const em = runtime.orm.em.fork();
    const login = await findLogin(em, await findTenant(em, required(options, 'tenant')), required(options, 'email'));
    return (await createSession(em, login, loadConfig().SESSION_TTL_HOURS)).token;
  },
  async 'apikey create'(runtime, options) {
    const em = runtime.orm.em.fork();
    const login = await findLogin(em, await findTenant(em, required(options, 'tenant')), required(options, 'email'));
    const expires = options.expires ? new Date(options.expires) : null;
    if (expires && Number.isNaN(expires.getTime())) throw new Error('--expires must be an ISO date');
    const key = await createApiKey(em, login, required(options, 'name'), expires);
    process.stderr.write(`API key ${key.credentialId} created; it is shown only now.\n`);
    return key.token;
  },
  async 'apikey revoke'(runtime, options) {
    const em = runtime.orm.em.fork();
    const id = Number(required(options, 'id'));
    if (!Number.isInteger(id)) throw new Error('--id must be an integer');
    await revokeApiKey(em, await findTenant(em, required(options, 'tenant')), id);
    return `API key ${id} revoked`;
  },
  async 'callback-secret set'(runtime, options) {
    const em = runtime.orm.em.fork();
    const tenant = await findTenant(em, required(options, 'tenant'));
    const secret = await setCallbackSecret(em, tenant, required(options, 'provider'));
    process.stderr.write(`Callback secret for ${tenant.key} / ${options.provider} set; it is shown only now and replaces any earlier one.\n`);
    return secret;
  },
  async 'callbacks requeue'(runtime, options) {
    const tenant = options.tenant ? await findTenant(runtime.orm.em.fork(), options.tenant) : null;
    const boss = await startJobs({ url: runtime.database.url, orm: runtime.orm, log: createLogger({ LOG_LEVEL: 'silent' }), jobs: callbackJobs(), worker: false });
    const client = new pg.Client({ connectionString: runtime.database.url });
    await client.connect();
    try {
      const [{ dead }] = (await client.query<{ dead: number }>(
        `SELECT count(*)::int AS dead FROM provider_callback WHERE state = 'dead' AND ($1::int IS NULL OR tenant_id = $1)`, [tenant?.id ?? null])).rows;
      const step = progressReporter()('callbacks queued', dead);
      const count = await queueCallbacks(client, boss, 'dead', tenant?.id ?? null, (queued) => step.tick(queued));
      step.finish();
      return `${count} dead callback${count === 1 ? '' : 's'} queued again`;
    } finally {
      await client.end();
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  },
  async 'memberships lapse'(runtime) {
    const lapsed = await lapseEndedMemberships(runtime.orm);
    return `${lapsed} membership${lapsed === 1 ? '' : 's'} lapsed`;
  },
  async seed(runtime, options) {
    const size = required(options, 'size');
    if (!(size in SEED_SIZES)) throw new UsageError(`--size must be ${Object.keys(SEED_SIZES).join(' or ')}`);
    const seed = Number(options.seed ?? '1');
    if (!Number.isSafeInteger(seed) || seed < 0) throw new UsageError('--seed must be a whole number of 0 or more');
    // A tenant seeded before is refused (AlreadySeeded: its message, exit code 1).
    const result = await seedTenant(runtime.orm.em.fork(), { tenantKey: required(options, 'tenant'), tenantName: options.name, size: size as SeedSize, seed, progress: progressReporter() });
    return describeSeed(result, size as SeedSize, seed);
  },
  async migrate() {
    return 'migrations are up to date'; // startRuntime has applied them
  },
  async 'migration create'(runtime, options) {
    const name = (options.name ?? 'change').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const result = await runtime.orm.migrator.create(MIGRATIONS_FOLDER, false, false);
    if (!result.diff.up.length) return 'no changes';
    // After the highest number in the folder (numbers may have been reserved out of order).
    const numbers = readdirSync(MIGRATIONS_FOLDER).flatMap((file) => (/^(\d{4})-/.exec(file) ? [Number(file.slice(0, 4))] : []));
    const next = String(Math.max(0, ...numbers) + 1).padStart(4, '0');
    const file = `${next}-${name}.ts`;
    // The generator names the class and the migration after a timestamp; ours follow the file.
    const className = name.replace(/(^|-)([a-z0-9])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
    const source = readFileSync(path.join(MIGRATIONS_FOLDER, result.fileName), 'utf8')
      .replace(/export class Migration\d+/, `export class ${/^\d/.test(className) ? `Migration${className}` : className}`)
      .replace(/override name = '[^']*'/, `override name = '${file.replace(/\.ts$/, '')}'`);
    writeFileSync(path.join(MIGRATIONS_FOLDER, file), source);
    unlinkSync(path.join(MIGRATIONS_FOLDER, result.fileName));
    writeMigrationIndex(MIGRATIONS_FOLDER);
    return `wrote ${MIGRATIONS_FOLDER}/${file} and regenerated ${MIGRATIONS_FOLDER}/index.ts`;
  },
};

function required(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}
