import 'reflect-metadata';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from './core/config.js';
import { startJobs } from './core/jobs.js';
import { createLogger } from './core/logger.js';
import { callbackJobs, queueCallbacks } from './services/callback-processing.js';
import { setCallbackSecret } from './services/callbacks.js';
import { createApiKey, createLogin, createSession, createTenant, findLogin, findTenant, revokeApiKey } from './services/identity.js';
import { writeMigrationIndex } from './db/migration-index.js';
import { startRuntime, type Runtime } from './runtime.js';

const MIGRATIONS_FOLDER = 'src/db/migrations';

/** Each command's synopsis and what it does, for `--help`. */
const help: Record<string, string> = {
  'tenant create': 'tenant create --key KEY --name NAME [--domain DOMAIN]\n    creates a tenant',
  'login create': 'login create --tenant KEY --email EMAIL --role staff|member|partner [--first-name F] [--last-name L]\n    creates a login (and its contact) in a tenant',
  token: 'token --tenant KEY --email EMAIL\n    prints a new session token (only the token)',
  'apikey create': 'apikey create --tenant KEY --email EMAIL --name NAME [--expires ISO-DATE]\n    prints a new API key for a partner integration (only the key; shown once)',
  'apikey revoke': 'apikey revoke --tenant KEY --id ID\n    revokes an API key',
  'callback-secret set': 'callback-secret set --tenant KEY --provider emailprovider1|emailprovider2|emailprovider3|emailprovider4|meetingprovider\n' +
    '    prints a new callback signing secret (only the secret; shown once)',
  'callbacks requeue': 'callbacks requeue [--tenant KEY]\n    queues dead-lettered callbacks for processing again',
  migrate: 'migrate\n    applies pending migrations',
  'migration create': 'migration create [--name WHAT]\n    writes src/db/migrations/000N-WHAT.ts for entity changes and regenerates the migration index (development)',
};

const usage = `Usage: npm run cli -- <command> [options]     (npm run cli -- <command> --help for one command)
${Object.values(help).map((text) => `  ${text}`).join('\n')}
Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (shared with a running server).
Exit codes: 0 done, 1 failed (the reason on stderr), 2 wrong usage.`;

const STRING_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(
  ['key', 'name', 'domain', 'tenant', 'email', 'role', 'first-name', 'last-name', 'expires', 'id', 'provider'].map((name) => [name, { type: 'string' }]),
);

/** A mistake in how the command was called (exit code 2), as opposed to a failure (1). */
class UsageError extends Error {}

type Options = Record<string, string | undefined>;

const commands: Record<string, (runtime: Runtime, options: Options) => Promise<string>> = {
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
      const count = await queueCallbacks(client, boss, 'dead', tenant?.id ?? null);
      return `${count} dead callback${count === 1 ? '' : 's'} queued again`;
    } finally {
      await client.end();
      await boss.stop({ graceful: false, timeout: 2000 });
    }
  },
  async migrate() {
    return 'migrations are up to date'; // startRuntime has applied them
  },
  async 'migration create'(runtime, options) {
    const name = (options.name ?? 'change').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const result = await runtime.orm.migrator.create(MIGRATIONS_FOLDER, false, false);
    if (!result.diff.up.length) return 'no changes';
    const next = String(readdirSync(MIGRATIONS_FOLDER).filter((file) => /^\d{4}-/.test(file)).length + 1).padStart(4, '0');
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

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...STRING_OPTIONS,
      },
    });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const given: Record<string, unknown> = values;
  const options: Options = Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const name = [positionals.join(' '), positionals[0] ?? ''].find((candidate) => candidate in commands);
  if (values.help) {
    process.stdout.write(`${name ? `Usage: npm run cli -- ${help[name]}` : usage}\n`);
    return 0;
  }
  if (!name) {
    process.stderr.write(`${positionals.length ? `error: unknown command "${positionals.join(' ')}"\n` : ''}${usage}\n`);
    return 2;
  }
  const runtime = await startRuntime(loadConfig(), () => {});
  try {
    process.stdout.write(`${await commands[name](runtime, options)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`error: ${error.message}\nUsage: npm run cli -- ${help[name]}\n`);
    return 2;
  } finally {
    await runtime.stop();
  }
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
