import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { eventuallyStatus, rest, startTestServer } from './support/harness.js';
import { runCli } from './support/processes.js';

// Each command is its own Node process that opens the ORM and checks the migrations: a few seconds
// apiece on a loaded CI machine, and a test here runs up to five of them.
jest.setTimeout(120_000);

const server = await startTestServer();
afterAll(() => server.close());

const cli = (...args: string[]) => runCli(server.databaseUrl, ...args);

describe('command line', () => {
  it('creates a tenant and a login, and issues a token that the API accepts', async () => {
    expect((await cli('tenant', 'create', '--key', 'clitown', '--name', 'CLI Town')).code).toBe(0);
    expect((await cli('login', 'create', '--tenant', 'clitown', '--email', 'boss@clitown.example', '--role', 'staff')).code).toBe(0);
    const issued = await cli('token', '--tenant', 'clitown', '--email', 'boss@clitown.example');
    expect(issued.code).toBe(0);
    const token = issued.stdout.trim();
    expect(token).toMatch(/^mms_[\w-]+$/); // only the token on stdout
    const aboutMe = await rest(server, 'GET', '/api/login/aboutme', { token });
    expect(aboutMe.body).toMatchObject({ TenantKey: 'clitown', AllRoles: ['staff'] });
  });

  it('creates an API key that works until it is revoked', async () => {
    await cli('tenant', 'create', '--key', 'keytown', '--name', 'Key Town');
    await cli('login', 'create', '--tenant', 'keytown', '--email', 'sync@keytown.example', '--role', 'staff');
    const created = await cli('apikey', 'create', '--tenant', 'keytown', '--email', 'sync@keytown.example', '--name', 'partner');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^mmk_/);
    const id = /API key (\d+)/.exec(created.stderr)![1];
    expect((await rest(server, 'GET', '/api/login/logincheck', { token: key })).status).toBe(200);
    expect((await cli('apikey', 'revoke', '--tenant', 'keytown', '--id', id)).code).toBe(0);
    await eventuallyStatus(() => rest(server, 'GET', '/api/login/logincheck', { token: key }), 401);
  });

  it('explains bad input and exits non-zero', async () => {
    const badRole = await cli('login', 'create', '--tenant', 'clitown', '--email', 'x@clitown.example', '--role', 'owner');
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toContain('role');
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Usage');
    const noTenant = await cli('token', '--tenant', 'nowhere', '--email', 'a@b.example');
    expect(noTenant.code).toBe(1);
    expect(noTenant.stderr).toContain('nowhere');
  });

  it('explains every command with --help, without starting a database, and refuses unknown options with exit code 2', async () => {
    const overview = await cli('--help');
    expect(overview.code).toBe(0);
    const commands = ['tenant create', 'login create', 'token', 'apikey create', 'apikey revoke', 'callback-secret set', 'callbacks requeue', 'memberships lapse', 'migrate', 'migration create'];
    for (const command of commands) {
      expect(overview.stdout).toContain(command);
      const one = await cli(...command.split(' '), '--help');
      expect({ command, code: one.code, usage: one.stdout.startsWith(`Usage: npm run cli -- ${command}`) }).toEqual({ command, code: 0, usage: true });
    }
    const badOption = await cli('token', '--bogus', 'x');
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('--bogus');
    const missing = await cli('token', '--tenant', 'clitown');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--email is required');
  });

  it('lapses ended memberships on demand, as the daily job does (memberships lapse)', async () => {
    const db = server.orm.em.fork().getConnection();
    const [{ id: tenantId }] = await db.execute<{ id: number }[]>(`insert into tenant (key, name) values ('lapsetown', 'Lapse Town') returning id`);
    const [{ id: typeId }] = await db.execute<{ id: number }[]>(`insert into membership_type (tenant_id, name) values (?, 'Yearly') returning id`, [tenantId]);
    const [{ id: contactId }] = await db.execute<{ id: number }[]>(`insert into contact (tenant_id, kind, first_name) values (?, 'person', 'Ended') returning id`, [tenantId]);
    await db.execute(`insert into membership (tenant_id, contact_id, membership_type_id, start_date, end_date, status)
      values (?, ?, ?, current_date - 400, current_date - 35, 'active')`, [tenantId, contactId, typeId]);
    const lapsed = await cli('memberships', 'lapse');
    expect({ code: lapsed.code, stdout: lapsed.stdout.trim() }).toEqual({ code: 0, stdout: '1 membership lapsed' });
    expect((await cli('memberships', 'lapse')).stdout.trim()).toBe('0 memberships lapsed');
  });

  it('applies migrations on demand', async () => {
    const migrated = await cli('migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain('up to date');
  });
});
