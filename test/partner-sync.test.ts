import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Tenant } from '../src/entities/index.js';
import { createApiKey, createLogin, findLogin, revokeApiKey } from '../src/services/login/identity.js';
import { createTestTenant, eventuallyStatus, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type TestServer, type TestTenant } from './support/harness.js';

// 401 (no key, garbage, revoked), 403 for a member, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/partnersync';
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
let partnerKey: string;
let otherPartnerKey: string;

async function partnerKeyOf(tenant: TestTenant): Promise<string> {
  const em = server.orm.em.fork();
  const login = await createLogin(em, await em.findOneOrFail(Tenant, { id: tenant.id }), { email: `partner@${tenant.key}.example`, role: 'partner' });
  return (await createApiKey(em, login, 'National partner', null)).token;
}

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'partner-acme');
  other = await createTestTenant(server, 'partner-other');
  partnerKey = await partnerKeyOf(acme);
  otherPartnerKey = await partnerKeyOf(other);
});
afterAll(() => server.close());

let sequence = 0;
/** A PartnerTransaction: a fresh TransactionId unless given, ChangedAt as given. */
function transaction(record: Record<string, unknown>, changedAt: string, options: { id?: string; isNational?: boolean } = {}) {
  return { Transaction: { TransactionId: options.id ?? `tx-${++sequence}`, ChangedAt: changedAt, Record: record }, IsNational: options.isNational ?? true };
}
const post = (path: string, body: unknown, token = partnerKey) => rest(server, 'POST', `${BASE}/${path}`, { token, body });
const remove = (path: string, model: unknown, token = partnerKey) => rest(server, 'DELETE', `${BASE}/${path}?model=${encodeURIComponent(JSON.stringify(model))}`, { token });
const audit = (nationalId: number, token = partnerKey) => rest(server, 'GET', `${BASE}/getcontactauditbynationalid/${nationalId}`, { token });
const changes = (since: string, query = '', token = partnerKey) => rest(server, 'GET', `${BASE}/getchangessince/${encodeURIComponent(since)}${query}`, { token });
const sql = <T = unknown>(text: string, params: unknown[] = []) => server.orm.em.getConnection().execute<T[]>(text, params);

/** Every PartnerAudit field the partner may send, with distinct values. */
function fullRecord(nationalId: number): Record<string, unknown> {
  const record: Record<string, unknown> = {
    ContactType: 'Business', NationalID: nationalId, StateID: `MN-${nationalId}`, Affiliation: 'Minnesota', URL: 'https://agency.example', Name: 'North Star Agency',
    FirstName: 'Nora', LastName: 'Star', Email: 'nora@agency.example', Title: 'Owner', Designation: 'CIC', OU: 'Sales', NumberOfEmployees: '25', AgencyType: 'Independent',
    EOPolicyNumber: 'EO-1', Status: 'Active', ParentAgency: 'Twin Cities Group', InformalFirstName: 'Nor', Suffix: 'Jr.', MiddleInitial: 'Q',
    FederalID: '12-3456789', Description: 'Commercial lines', JobTitle: 'Principal', Department: 'Front office',
    WorkPhoneExtension: '11', HomePhoneExtension: '12', OtherPhoneExtension: '13', PhoneExtension: '14', WorkPhone: '+1 612 555 0101', HomePhone: '+1 612 555 0102',
    OtherPhone: '+1 612 555 0103', MobilePhone: '+1 612 555 0104', Fax: '+1 612 555 0105', Phone: '+1 612 555 0106',
    PhysicalLine1: '1 Main St', PhysicalLine2: 'Suite 2', PhysicalCity: 'Minneapolis', PhysicalState: 'MN', PhysicalZip: '55401', PhysicalCountry: 'US',
    MailingLine1: 'PO Box 9', MailingLine2: 'Dept 4', MailingCity: 'St Paul', MailingState: 'MN', MailingZip: '55101', MailingCountry: 'US',
  };
  for (const letter of 'ABCDE') record[`SocialLink${letter}`] = `https://social.example/${letter}`;
  return record;
}

describe('partner upserts over REST', () => {
  it('creates an organization from a PartnerAudit and reads the same fields back', async () => {
    const sent = fullRecord(1001);
    const created = await post('organization/upsert', transaction(sent, '2026-01-01T10:00:00Z'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ TransactionLogId: expect.any(Number), Outcome: 'applied', PlatformID: expect.any(Number), NationalID: 1001 });
    const read = await audit(1001);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...sent, ParentNationalId: null, PlatformID: created.body.PlatformID, PlatformParentId: null });
  });

  it('updates a newer change, skips a duplicate and an older one (order by the partner\'s ChangedAt, not arrival)', async () => {
    await post('organization/upsert', transaction({ NationalID: 1002, Name: 'First' }, '2026-01-01T10:00:00Z'));
    const newer = transaction({ NationalID: 1002, Name: 'Third', Email: 'third@x.example' }, '2026-01-03T10:00:00Z');
    expect((await post('organization/upsert', newer)).body.Outcome).toBe('applied');
    const [before] = await sql<{ updated_at: Date }>(`SELECT c.updated_at FROM contact c WHERE national_id = '1002'`);
    expect((await post('organization/upsert', newer)).body.Outcome).toBe('duplicate');
    // An older change arriving late changes nothing, even for a field the newer one did not send.
    expect((await post('organization/upsert', transaction({ NationalID: 1002, Name: 'Second', Title: 'Old title' }, '2026-01-02T10:00:00Z'))).body.Outcome).toBe('stale');
    expect((await audit(1002)).body).toMatchObject({ Name: 'Third', Email: 'third@x.example', Title: null });
    const [after] = await sql<{ updated_at: Date }>(`SELECT c.updated_at FROM contact c WHERE national_id = '1002'`);
    expect(after.updated_at).toEqual(before.updated_at);
    // Absent fields stay, an empty string clears.
    await post('organization/upsert', transaction({ NationalID: 1002, Email: '' }, '2026-01-04T10:00:00Z'));
    expect((await audit(1002)).body).toMatchObject({ Name: 'Third', Email: null });
    const log = await graphql(server, '{ partnerTransactions(nationalId: 1002, options: { OrderBy: "TransactionLogId" }) { Outcome Operation IsNational } }', {}, acme.staffToken);
    expect(log.body.data.partnerTransactions.map((row: { Outcome: string }) => row.Outcome)).toEqual(['applied', 'applied', 'duplicate', 'stale', 'applied']);
  });

  it('matches a state record by StateID until the national level sends its NationalID', async () => {
    const state = await post('person/upsert', transaction({ StateID: 'WI-77', FirstName: 'Sam' }, '2026-02-01T00:00:00Z', { isNational: false }));
    expect(state.body.Outcome).toBe('applied');
    const national = await post('person/upsert', transaction({ NationalID: 1003, StateID: 'WI-77', LastName: 'Stone' }, '2026-02-02T00:00:00Z'));
    expect(national.body.PlatformID).toBe(state.body.PlatformID);
    expect((await audit(1003)).body).toMatchObject({ FirstName: 'Sam', LastName: 'Stone', StateID: 'WI-77', ContactType: 'Person' });
    // A later state transaction without the NationalID still finds it.
    const later = await post('person/upsert', transaction({ StateID: 'WI-77', Title: 'Agent' }, '2026-02-03T00:00:00Z', { isNational: false }));
    expect(later.body).toMatchObject({ Outcome: 'applied', PlatformID: state.body.PlatformID, NationalID: 1003 });
    expect((await post('person/upsert', transaction({ StateID: 'WI-77' }, '2026-02-04T00:00:00Z', { isNational: true }))).body.errors[0].field).toBe('Transaction.Record.NationalID');
  });

  it('creates a parent organization it has not seen as a placeholder, filled in by the parent\'s own upsert', async () => {
    const person = await post('person/upsert', transaction({ NationalID: 1005, FirstName: 'Pat', ParentNationalId: 1004 }, '2026-03-01T00:00:00Z'));
    expect(person.body.Outcome).toBe('applied');
    const parent = await post('organization/upsert', transaction({ NationalID: 1004, Name: 'Parent Agency' }, '2026-02-01T00:00:00Z'));
    expect(parent.body.Outcome).toBe('applied');
    expect((await audit(1005)).body).toMatchObject({ ParentNationalId: 1004, PlatformParentId: parent.body.PlatformID });
    expect((await audit(1004)).body).toMatchObject({ Name: 'Parent Agency' });
  });

  it('adopts an existing contact of ours with that NationalID instead of creating another', async () => {
    const [{ id }] = await sql<{ id: number }>(`INSERT INTO contact (tenant_id, kind, name, national_id) VALUES (?, 'organization', 'Ours', '1006') RETURNING id`, [acme.id]);
    expect((await post('organization/upsert', transaction({ NationalID: 1006, URL: 'https://ours.example' }, '2026-01-01T00:00:00Z'))).body.PlatformID).toBe(id);
    expect((await audit(1006)).body).toMatchObject({ Name: 'Ours', URL: 'https://ours.example' });
  });

  it('refuses what cannot be applied (400/409 naming the field) and records it as failed with the reason', async () => {
    const noId = await post('organization/upsert', transaction({ Name: 'Nobody' }, '2026-01-01T00:00:00Z'));
    expect(noId.status).toBe(400);
    expect(noId.body.errors).toEqual([{ field: 'Transaction.Record.NationalID', message: expect.any(String) }]);
    const badDate = await post('organization/upsert', transaction({ NationalID: 1007 }, '2026-02-30T00:00:00Z'));
    expect(badDate.status).toBe(400);
    expect(badDate.body.errors[0].field).toBe('Transaction.ChangedAt');
    expect((await post('organization/upsert', transaction({ NationalID: 1007 }, 'yesterday'))).body.errors[0].field).toBe('Transaction.ChangedAt');
    const future = await post('organization/upsert', transaction({ NationalID: 1007 }, '9999-12-31T23:59:59Z'));
    expect({ status: future.status, field: future.body.errors[0].field }).toEqual({ status: 400, field: 'Transaction.ChangedAt' });
    expect((await post('organization/upsert', transaction({ NationalID: 1007, Email: 'not-mail' }, '2026-01-01T00:00:00Z'))).body.errors[0].field).toBe('Transaction.Record.Email');
    expect((await post('organization/upsert', { IsNational: true })).body.errors[0].field).toBe('Transaction');
    await post('person/upsert', transaction({ NationalID: 1008, FirstName: 'Per' }, '2026-01-01T00:00:00Z'));
    const wrongKind = await post('organization/upsert', transaction({ NationalID: 1008, Name: 'Org?' }, '2026-01-02T00:00:00Z'));
    expect(wrongKind.status).toBe(409);
    const failed = await graphql(server, '{ partnerTransactions(outcome: "failed") { Operation Reason NationalID } }', {}, acme.staffToken);
    // A record named by neither id breaks the input's own rule (stated by the document): refused before it is logged, like any malformed input.
    expect(failed.body.data.partnerTransactions).toEqual(expect.arrayContaining([
      { Operation: 'organization/upsert', Reason: expect.stringContaining('ChangedAt'), NationalID: 1007 },
      { Operation: 'organization/upsert', Reason: expect.stringContaining('person'), NationalID: 1008 },
    ]));
  });
});

describe('moves', () => {
  it('moves an organization to another state, keeping the history; an older move arriving late is stale', async () => {
    await post('organization/upsert', transaction({ NationalID: 2001, Name: 'Mover', StateID: 'MN-1', Affiliation: 'Minnesota' }, '2026-01-01T00:00:00Z'));
    await post('organization/upsert', transaction({ NationalID: 2002, Name: 'Wisconsin HQ' }, '2026-01-01T00:00:00Z'));
    const moved = await post('organization/move', transaction({ NationalID: 2001, StateID: 'WI-5', Affiliation: 'Wisconsin', ParentNationalId: 2002 }, '2026-01-05T00:00:00Z'));
    expect(moved.body.Outcome).toBe('applied');
    const late = await post('organization/move', transaction({ NationalID: 2001, StateID: 'IA-3', Affiliation: 'Iowa' }, '2026-01-03T00:00:00Z'));
    expect(late.body.Outcome).toBe('stale');
    // A data upsert older than the move still applies its data, not its affiliation.
    expect((await post('organization/upsert', transaction({ NationalID: 2001, Name: 'Mover Inc', Affiliation: 'Old' }, '2026-01-04T00:00:00Z'))).body.Outcome).toBe('applied');
    const read = (await audit(2001)).body;
    expect(read).toMatchObject({ Name: 'Mover Inc', StateID: 'WI-5', Affiliation: 'Wisconsin', ParentNationalId: 2002 });
    const history = await graphql(server, '{ partnerAffiliations(nationalId: 2001) { StateID Affiliation ParentNationalId Cause ValidFrom } }', {}, acme.staffToken);
    expect(history.body.data.partnerAffiliations).toEqual([
      { StateID: 'MN-1', Affiliation: 'Minnesota', ParentNationalId: null, Cause: 'upsert', ValidFrom: '2026-01-01T00:00:00.000Z' },
      { StateID: 'WI-5', Affiliation: 'Wisconsin', ParentNationalId: 2002, Cause: 'move', ValidFrom: '2026-01-05T00:00:00.000Z' },
    ]);
  });

  it('moves a person to another organization over GraphQL', async () => {
    await post('organization/upsert', transaction({ NationalID: 2011, Name: 'Old Org' }, '2026-01-01T00:00:00Z'));
    await post('organization/upsert', transaction({ NationalID: 2012, Name: 'New Org' }, '2026-01-01T00:00:00Z'));
    await post('person/upsert', transaction({ NationalID: 2013, FirstName: 'Moe', ParentNationalId: 2011 }, '2026-01-01T00:00:00Z'));
    const moved = await graphql(server, 'mutation($t: PartnerTransactionInput!) { movePartnerPerson(transaction: $t) { Outcome PlatformID } }',
      { t: transaction({ NationalID: 2013, ParentNationalId: 2012 }, '2026-01-02T00:00:00Z') }, partnerKey);
    expect(moved.body.data.movePartnerPerson.Outcome).toBe('applied');
    const read = await graphql(server, '{ partnerContactAudit(nationalId: 2013) { FirstName ParentNationalId PlatformParentId } }', {}, partnerKey);
    expect(read.body.data.partnerContactAudit).toMatchObject({ FirstName: 'Moe', ParentNationalId: 2012 });
    const empty = await post('person/move', transaction({ NationalID: 2013 }, '2026-01-03T00:00:00Z'));
    expect(empty.status).toBe(400);
  });
});

describe('deletes and the change feed', () => {
  it('soft-deletes at the partner\'s request without echoing it; an older upsert cannot bring it back, a newer one does', async () => {
    await post('organization/upsert', transaction({ NationalID: 3001, Name: 'Doomed' }, '2026-01-01T00:00:00Z'));
    const since = new Date(Date.now() - 1000).toISOString();
    const deleted = await remove('organization/delete', transaction({ NationalID: 3001 }, '2026-01-02T00:00:00Z'));
    expect(deleted.status).toBe(200);
    expect(deleted.body.Outcome).toBe('applied');
    expect((await audit(3001)).status).toBe(404);
    expect((await changes(since)).body.Changes.filter((change: { NationalID: number }) => change.NationalID === 3001)).toEqual([]);
    expect((await post('organization/upsert', transaction({ NationalID: 3001, Name: 'Zombie' }, '2026-01-01T12:00:00Z'))).body.Outcome).toBe('stale');
    expect((await audit(3001)).status).toBe(404);
    expect((await post('organization/upsert', transaction({ NationalID: 3001, Name: 'Reborn' }, '2026-01-03T00:00:00Z'))).body.Outcome).toBe('applied');
    expect((await audit(3001)).body.Name).toBe('Reborn');
  });

  it('keeps a deletion of a record it never saw, so that an older upsert arriving after it stays deleted', async () => {
    const deleted = await graphql(server, 'mutation($m: PartnerTransactionInput!) { deletePartnerPerson(model: $m) { Outcome } }',
      { m: transaction({ NationalID: 3002 }, '2026-01-05T00:00:00Z') }, partnerKey);
    expect(deleted.body.data.deletePartnerPerson.Outcome).toBe('applied');
    expect((await post('person/upsert', transaction({ NationalID: 3002, FirstName: 'Late' }, '2026-01-04T00:00:00Z'))).body.Outcome).toBe('stale');
    expect((await audit(3002)).status).toBe(404);
  });

  it('reports our own changes and deletions (not the partner\'s) in order, paged exactly across a boundary instant', async () => {
    const ids: number[] = [];
    for (const nationalId of [3101, 3102, 3103, 3104, 3105]) {
      ids.push((await post('person/upsert', transaction({ NationalID: nationalId, FirstName: `P${nationalId}` }, '2026-01-01T00:00:00Z'))).body.PlatformID as number);
    }
    // Partner changes only so far: nothing to report.
    expect((await changes('2000-01-01')).body.Changes.filter((change: { NationalID: number }) => change.NationalID > 3100 && change.NationalID < 3200)).toEqual([]);
    // Our changes: four contacts at one instant (the boundary), one deleted a moment later.
    await sql(`UPDATE contact SET title = 'Changed by staff', updated_at = '2031-05-05T05:05:05.123456Z' WHERE id IN (?)`, [ids.slice(0, 4)]);
    await sql(`UPDATE contact SET deleted_at = '2031-05-05T05:05:06Z' WHERE id = ?`, [ids[4]]);
    const seen: { PlatformID: number; ChangeType: string; ChangedAt: string; Title: string | null }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await changes('2031-05-05T05:05:05.123456Z', `?take=3${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.Changes);
      cursor = page.body.NextCursor;
      pages++;
    } while (cursor && pages < 10);
    // take=3 then 2 (no NextCursor on the last), every change once, in (ChangedAt, PlatformID) order.
    expect(pages).toBe(2);
    expect(seen.map((change) => [change.PlatformID, change.ChangeType, change.ChangedAt])).toEqual([
      ...ids.slice(0, 4).sort((a, b) => a - b).map((id) => [id, 'Changed', '2031-05-05T05:05:05.123456Z']),
      [ids[4], 'Deleted', '2031-05-05T05:05:06.000000Z'],
    ]);
    expect(seen[0].Title).toBe('Changed by staff');
    // Just after the boundary instant: only the deletion.
    expect((await changes('2031-05-05T05:05:05.123457Z')).body.Changes.map((change: { PlatformID: number }) => change.PlatformID)).toEqual([ids[4]]);
    // The same through GraphQL.
    const first = await graphql(server, '{ partnerChanges(utcDateTime: "2031-05-05T05:05:05.123456Z", take: 4) { Changes { PlatformID ChangeType } NextCursor } }', {}, partnerKey);
    expect(first.body.data.partnerChanges.Changes).toHaveLength(4);
    const rest2 = await graphql(server, 'query($a: String) { partnerChanges(utcDateTime: "2031-05-05T05:05:05.123456Z", after: $a) { Changes { PlatformID ChangeType } NextCursor } }',
      { a: first.body.data.partnerChanges.NextCursor }, partnerKey);
    expect(rest2.body.data.partnerChanges).toEqual({ Changes: [{ PlatformID: ids[4], ChangeType: 'Deleted' }], NextCursor: null });
    // A partner change applied after ours is not echoed: the contact leaves the feed.
    await post('person/upsert', transaction({ NationalID: 3101, FirstName: 'Back' }, '2026-01-02T00:00:00Z'));
    expect((await changes('2031-05-05T05:05:05.123456Z')).body.Changes.map((change: { NationalID: number }) => change.NationalID)).not.toContain(3101);
  });

  it('refuses a malformed instant, page size or cursor (400 naming it)', async () => {
    for (const [path, field] of [['not-a-date', 'utcdatetime'], ['0000-01-01', 'utcdatetime'], ['2026-13-01', 'utcdatetime'], ['2026-01-01T00:00:00+25:00', 'utcdatetime']] as const) {
      const response = await changes(path);
      expect({ path, status: response.status, field: response.body.errors?.[0]?.field }).toEqual({ path, status: 400, field });
    }
    expect((await changes('2026-01-01', '?take=0')).body.errors[0].field).toBe('take');
    expect((await changes('2026-01-01', '?after=bogus')).body.errors[0].field).toBe('after');
    const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00Z', 1e12])).toString('base64url');
    expect((await changes('2026-01-01', `?after=${forged}`)).body.errors[0].field).toBe('after');
  });
});

describe('every operation over the other interface', () => {
  it('upserts, moves and deletes an organization over GraphQL; moves and deletes a person over REST', async () => {
    const upsert = 'mutation($t: PartnerTransactionInput!) { upsertPartnerOrganization(transaction: $t) { Outcome PlatformID NationalID } }';
    const created = await graphql(server, upsert, { t: transaction({ NationalID: 6001, Name: 'GraphQL Org', StateID: 'OH-1' }, '2026-01-01T00:00:00Z') }, partnerKey);
    expect(created.body.data.upsertPartnerOrganization).toMatchObject({ Outcome: 'applied', NationalID: 6001 });
    const person = await graphql(server, 'mutation($t: PartnerTransactionInput!) { upsertPartnerPerson(transaction: $t) { Outcome } }',
      { t: transaction({ NationalID: 6002, FirstName: 'Gail', ParentNationalId: 6001 }, '2026-01-01T00:00:00Z') }, partnerKey);
    expect(person.body.data.upsertPartnerPerson.Outcome).toBe('applied');
    const moved = await graphql(server, 'mutation($t: PartnerTransactionInput!) { movePartnerOrganization(transaction: $t) { Outcome } }',
      { t: transaction({ NationalID: 6001, StateID: 'KY-2', Affiliation: 'Kentucky' }, '2026-01-02T00:00:00Z') }, partnerKey);
    expect(moved.body.data.movePartnerOrganization.Outcome).toBe('applied');
    expect((await audit(6001)).body).toMatchObject({ StateID: 'KY-2', Affiliation: 'Kentucky' });

    expect((await post('person/move', transaction({ NationalID: 6002, ParentNationalId: 0, Affiliation: 'Independent' }, '2026-01-02T00:00:00Z'))).body.Outcome).toBe('applied');
    expect((await audit(6002)).body).toMatchObject({ ParentNationalId: null, PlatformParentId: null, Affiliation: 'Independent' });
    expect((await remove('person/delete', transaction({ NationalID: 6002 }, '2026-01-03T00:00:00Z'))).body.Outcome).toBe('applied');
    expect((await audit(6002)).status).toBe(404);

    const deleted = await graphql(server, 'mutation($m: PartnerTransactionInput!) { deletePartnerOrganization(model: $m) { Outcome } }',
      { m: transaction({ NationalID: 6001 }, '2026-01-03T00:00:00Z') }, partnerKey);
    expect(deleted.body.data.deletePartnerOrganization.Outcome).toBe('applied');
    const gone = await graphql(server, '{ partnerContactAudit(nationalId: 6001) { Name } }', {}, partnerKey);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    const malformed = await rest(server, 'DELETE', `${BASE}/person/delete?model=not-json`, { token: partnerKey });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].field).toBe('model');
  });
});

describe('who may call', () => {
  it('answers the partner key and staff, not a member, nor without a key', async () => {
    expect((await audit(1001, acme.staffToken)).status).toBe(200);
    expect((await audit(1001, acme.memberToken)).status).toBe(403);
    expect((await rest(server, 'GET', `${BASE}/getcontactauditbynationalid/1001`)).status).toBe(401);
    const em = server.orm.em.fork();
    const login = await findLogin(em, await em.findOneOrFail(Tenant, { id: acme.id }), `partner@${acme.key}.example`);
    const revoked = await createApiKey(em, login, 'Old partner key', null);
    expect((await audit(1001, revoked.token)).status).toBe(200);
    await revokeApiKey(em, login.tenant, revoked.credentialId);
    await eventuallyStatus(() => audit(1001, revoked.token), 401);
  });

  it("gives a partner key of another tenant nothing of this tenant's", async () => {
    expect((await audit(1001, otherPartnerKey)).status).toBe(404);
    expect((await changes('2000-01-01', '', otherPartnerKey)).body.Changes).toEqual([]);
    // Its upsert of the same NationalID is its own tenant's record.
    const theirs = await post('organization/upsert', transaction({ NationalID: 1001, Name: 'Other tenant' }, '2026-06-01T00:00:00Z'), otherPartnerKey);
    expect(theirs.body.Outcome).toBe('applied');
    expect((await audit(1001)).body.Name).toBe('North Star Agency');
    expect((await audit(1001, other.staffToken)).body.Name).toBe('Other tenant');
  });

  it('keeps the transaction log for staff only', async () => {
    const member = await graphql(server, '{ partnerTransactions { Outcome } }', {}, acme.memberToken);
    expect(member.status).toBe(403);
    const partner = await graphql(server, '{ partnerTransactions { Outcome } }', {}, partnerKey);
    expect(partner.status).toBe(403);
  });
});

describe('races', () => {
  it('creates one contact when concurrent upserts of a new NationalID meet', async () => {
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => post('organization/upsert', transaction({ NationalID: 4001, Name: `Racer ${index}` }, `2026-01-01T00:00:${String(index).padStart(2, '0')}Z`))));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    expect(new Set(responses.map((response) => response.body.PlatformID)).size).toBe(1);
    const [{ count }] = await sql<{ count: number }>(`SELECT count(*)::int AS count FROM contact WHERE tenant_id = ? AND national_id = '4001'`, [acme.id]);
    expect(count).toBe(1);
    // Whatever the arrival order, the newest change wins.
    expect((await audit(4001)).body.Name).toBe('Racer 11');
  });

  it('applies a transaction delivered twice at once exactly once', async () => {
    const twice = transaction({ NationalID: 4002, Name: 'Twice' }, '2026-01-01T00:00:00Z');
    const responses = await Promise.all([post('organization/upsert', twice), post('organization/upsert', twice), post('organization/upsert', twice)]);
    expect(responses.map((response) => response.body.Outcome).sort()).toEqual(['applied', 'duplicate', 'duplicate']);
  });
});

describe('statements per page', () => {
  it('reads a page of the change feed in one statement, whatever its size', async () => {
    const ids: number[] = [];
    for (let index = 0; index < 55; index++) ids.push((await post('person/upsert', transaction({ NationalID: 7000 + index, FirstName: 'Feed' }, '2026-01-01T00:00:00Z'))).body.PlatformID as number);
    await sql(`UPDATE contact SET updated_at = '2032-01-01T00:00:00Z' WHERE id IN (?)`, [ids]);
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const page = await changes('2032-01-01T00:00:00Z', `?take=${take}`);
      expect(page.body.Changes).toHaveLength(take);
    }, 3);
  }, 60_000);

  it('lists the transaction log at the same cost for 5 rows as for 50', async () => {
    for (let index = 0; index < 50; index++) await post('person/upsert', transaction({ NationalID: 5000 + index, FirstName: 'Bulk' }, '2026-01-01T00:00:00Z'));
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await graphql(server, 'query($o: ListOptions) { partnerTransactions(options: $o, outcome: "applied") { TransactionLogId PlatformID } }', { o: { Take: String(take) } }, acme.staffToken);
      expect(response.body.data.partnerTransactions).toHaveLength(take);
    }, 6);
  }, 60_000);
});
