import { parseArgs } from 'node:util';
import type { Options } from './cli-commands.js';
import { failureText } from './core/runtime/failures.js';

/** Each command's synopsis and what it does, for `--help`. */
const help: Record<string, string> = {
  'tenant create': 'tenant create --key KEY --name NAME [--domain DOMAIN]\n    creates a tenant',
  'login create': 'login create --tenant KEY --email EMAIL --role staff|member|partner [--first-name F] [--last-name L]\n    creates a login (and its contact) in a tenant',
  token: 'token --tenant KEY --email EMAIL\n    prints a new session token (only the token)',
  'apikey create': 'apikey create --tenant KEY --email EMAIL --name NAME [--expires ISO-DATE]\n    prints a new API key for a partner integration (only the key; shown once)',
  'apikey revoke': 'apikey revoke --tenant KEY --id ID\n    revokes an API key',
  'login enable': 'login enable --tenant KEY --email EMAIL\n    lets a login disabled by archiving its contact sign in again (restore the contact first)',
  'callback-secret set': 'callback-secret set --tenant KEY --provider emailprovider1|emailprovider2|emailprovider3|emailprovider4|meetingprovider\n' +
    '    prints a new callback signing secret (only the secret; shown once)',
  'callbacks requeue': 'callbacks requeue [--tenant KEY]\n    queues dead-lettered callbacks for processing again',
  'memberships lapse': 'memberships lapse\n    lapses now the memberships the daily job would (active, not overridden, good standing run out); safe to repeat',
  migrate: 'migrate\n    applies pending migrations',
  seed: 'seed --tenant KEY --size small|large [--seed N] [--name NAME]\n' +
    '    fills a tenant (created if missing) with demo data: small about 300 contacts, large 110,000 contacts and 100,000 vendors; once per tenant',
  'migration create': 'migration create [--name WHAT]\n    writes src/db/migrations/000N-WHAT.ts for entity changes and regenerates the migration index (development)',
};

const usage = `Usage: npm run cli -- <command> [options]     (npm run cli -- <command> --help for one command)
${Object.values(help).map((text) => `  ${text}`).join('\n')}
Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (shared with a running server).
Long-running commands show their progress on stderr: a bar on a terminal, plain lines otherwise.
Exit codes: 0 done, 1 failed (the reason on stderr), 2 wrong usage.`;

const STRING_OPTIONS: Record<string, { type: 'string' }> = Object.fromEntries(
  ['key', 'name', 'domain', 'tenant', 'email', 'role', 'first-name', 'last-name', 'expires', 'id', 'provider', 'size', 'seed'].map((name) => [name, { type: 'string' }]),
);

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
    process.stderr.write(`error: ${failureText(error)}\n${usage}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const given: Record<string, unknown> = values;
  const options: Options = Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  const name = [positionals.join(' '), positionals[0] ?? ''].find((candidate) => candidate in help);
  if (values.help) {
    process.stdout.write(`${name ? `Usage: npm run cli -- ${help[name]}` : usage}\n`);
    return 0;
  }
  if (!name) {
    process.stderr.write(`${positionals.length ? `error: unknown command "${positionals.join(' ')}"\n` : ''}${usage}\n`);
    return 2;
  }
  // Loaded only now: the services, the ORM and the schema are what make a command slow to start.
  const [{ commands, UsageError }, { startRuntime }, { loadConfig }, { progressReporter }] = await Promise.all([
    import('./cli-commands.js'), import('./runtime.js'), import('./core/config.js'), import('./core/runtime/progress.js'),
  ]);
  const runtime = await startRuntime(loadConfig(), () => {}, progressReporter());
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
  process.stderr.write(`error: ${failureText(error)}\n`);
  process.exit(1);
});
