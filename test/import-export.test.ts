import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { loadConfig } from '../src/core/config.js';
import { CustomField } from '../src/entities/custom-field.js';
import { MembershipType } from '../src/entities/membership.js';
import { contactImportJobs } from '../src/services/imports/imports.js';
import { createTestTenant, graphql, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';
import { waitFor } from './support/processes.js';

// 401/403 on every operation, malformed input, tenant isolation of the demo records and the fuzz: test/sweeps.test.ts.
// Here: what an import does with real files, through both interfaces. A kill mid-import: import-export-kill.test.ts.

/** Three rows a batch, so that a small file crosses batches (and a checkpoint moves several times). */
const BATCH_ROWS = 3;

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', MASTER_KEY: 'test-master-key-0123456789', IMPORT_BATCH_ROWS: String(BATCH_ROWS) });
  server = await startTestServer({ DATABASE_POOL_MAX: '20' }, { jobs: contactImportJobs({ pumpEveryMs: 100, config }) });
  acme = await createTestTenant(server, 'imports');
  other = await createTestTenant(server, 'imports-other');
  const em = server.orm.em.fork();
  for (const tenant of [acme, other]) {
    em.create(MembershipType, { tenant: tenant.id, name: 'Gold', durationMonths: 12 });
    em.create(MembershipType, { tenant: tenant.id, name: 'Retired', isActive: false });
  }
  await em.flush();
});
afterAll(() => server.close());

const db = <T>(query: string, params: unknown[] = []) => server.orm.em.fork().getConnection().execute<T[]>(query, params);

/** A real multipart/form-data upload of a CSV. */
async function upload(csv: string | Buffer, token = acme.staffToken, filename = 'members.csv'): Promise<HttpResult> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(Buffer.from(csv))], { type: 'text/csv' }), filename);
  const response = await fetch(`${server.baseUrl}/api/imports/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

const STATUS_FIELDS = 'ImportId State DryRun RowsTotal RowsDone Progress Created Updated Unchanged Rejected Error MatchOn';
const START = `mutation($id: Int!, $input: ContactImportStartInput!) { startContactImport(importId: $id, input: $input) { ${STATUS_FIELDS} } }`;
const STATUS = `query($id: Int!) { contactImport(importId: $id) { ${STATUS_FIELDS} } }`;
const ROWS = 'query($id: Int!, $o: ContactImportRowsInput) { contactImportRows(importId: $id, options: $o) { Total Results { RowNumber Outcome Reason ContactId } } }';

async function finished(importId: number, tenant = acme): Promise<Record<string, unknown>> {
  return waitFor('the import to finish', async () => (await graphql(server, STATUS, { id: importId }, tenant.staffToken)).body.data.contactImport as Record<string, unknown>,
    (status) => ['completed', 'failed', 'cancelled'].includes(status.State as string), 20_000, 100);
}

/** Uploads `csv`, runs it (suggested mapping unless given) and answers the finished status. */
async function importFile(csv: string, input: Record<string, unknown> = {}, tenant = acme): Promise<Record<string, unknown>> {
  const uploaded = await upload(csv, tenant.staffToken);
  expect(uploaded.status).toBe(200);
  const started = await graphql(server, START, { id: uploaded.body.ImportId, input }, tenant.staffToken);
  expect(started.body.errors).toBeUndefined();
  return finished(uploaded.body.ImportId as number, tenant);
}

/**
 * A messy export of another system: BOM, semicolons, a quoted delimiter and line break, CRLF, a
 * duplicate row, a bad date, unknown choices, a CiviCRM-style address block and a bad website.
 */
const NO_ADDRESS = ';;;;;;;;';
const MESSY = '\uFEFF' + [
  'External Identifier;First Name;Last Name;Email;Organization;Role;Membership Type;Status;Start Date;End Date;'
    + 'Street Address;Supplemental Address 1;City;State/Province;Postal Code;Country;Phone;Mobile;Web Page',
  `A1;Ada;Lovelace;ada@example.org;"Analytical; Engines";Founder;Gold;Active;2026-01-01;2026-12-31;12 St James's Square;;London;;SW1Y 4JH;UK;+44 20 7946 0000;;https://ada.example.org`,
  'A2;"Grace\r\nBrewster";Hopper;grace@example.org;;;Gold;Current;2026-02-01;;1 Navy Way;"Suite 2; Floor 3";Arlington;VA;22202;USA;+1 555 0101;+1 555 0102;',
  `A1;Ada;Lovelace;ada@example.org;"Analytical; Engines";Founder;Gold;Active;2026-01-01;2026-12-31;12 St James's Square;;London;;SW1Y 4JH;UK;+44 20 7946 0000;;https://ada.example.org`,
  `A3;Alan;Turing;alan@example.org;;;Gold;Active;2026-13-45;;${NO_ADDRESS}`,
  `A4;Katherine;Johnson;kj@example.org;;;Gold;Zombie;2026-01-01;;${NO_ADDRESS}`,
  `A5;Edsger;Dijkstra;ed@example.org;;;Platinum;Active;2026-01-01;;${NO_ADDRESS}`,
  `A6;;;nobody@example.org;;;;;;;${NO_ADDRESS}`,
  `A7;Barbara;Liskov;not-an-email;;;;;;;${NO_ADDRESS}`,
  'A8;Niklaus;Wirth;nw@example.org;;;;;;;;;;;;;;;ftp://wirth.example',
  '',
].join('\r\n');

const MESSY_OUTCOMES = [
  { RowNumber: 1, Outcome: 'created', Reason: null },
  { RowNumber: 2, Outcome: 'created', Reason: null },
  { RowNumber: 3, Outcome: 'unchanged', Reason: null },
  { RowNumber: 4, Outcome: 'rejected', Reason: 'MembershipStartDate: must be a calendar date (yyyy-mm-dd)' },
  { RowNumber: 5, Outcome: 'rejected', Reason: 'MembershipStatus: must be pending, active, lapsed or cancelled' },
  { RowNumber: 6, Outcome: 'rejected', Reason: 'MembershipType: no membership type named "Platinum"' },
  { RowNumber: 7, Outcome: 'rejected', Reason: 'FirstName: a person needs a first or last name' },
  { RowNumber: 8, Outcome: 'rejected', Reason: 'Email: must be an e-mail address' },
  { RowNumber: 9, Outcome: 'rejected', Reason: 'Website: must be an http(s) URL' },
];

describe('a messy real-world file', () => {
  let importId: number;

  it('uploads (REST multipart) and previews with suggested mappings (GraphQL and REST)', async () => {
    const uploaded = await upload(MESSY);
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toMatchObject({ State: 'uploaded', RowsTotal: 9, RowsDone: 0, FileName: 'members.csv' });
    importId = uploaded.body.ImportId;

    const PREVIEW = 'query($id: Int!) { contactImportPreview(importId: $id) { Delimiter Headers Rows RowsTotal SuggestedMapping { Column Field } SuggestedMatchOn } }';
    const viaGraphql = await graphql(server, PREVIEW, { id: importId }, acme.staffToken);
    expect(viaGraphql.body.errors).toBeUndefined();
    const preview = viaGraphql.body.data.contactImportPreview;
    expect(preview.Delimiter).toBe(';');
    expect(preview.Headers[0]).toBe('External Identifier'); // the BOM is gone
    expect(preview.Rows[1]).toEqual([
      'A2', 'Grace\r\nBrewster', 'Hopper', 'grace@example.org', '', '', 'Gold', 'Current', '2026-02-01', '', '1 Navy Way', 'Suite 2; Floor 3', 'Arlington', 'VA', '22202', 'USA',
      '+1 555 0101', '+1 555 0102', '',
    ]);
    expect(preview.RowsTotal).toBe(9);
    expect(preview.SuggestedMapping).toEqual([
      { Column: 'External Identifier', Field: 'ExternalId' }, { Column: 'First Name', Field: 'FirstName' }, { Column: 'Last Name', Field: 'LastName' },
      { Column: 'Email', Field: 'Email' }, { Column: 'Organization', Field: 'Organization' }, { Column: 'Role', Field: 'OrganizationRole' },
      { Column: 'Membership Type', Field: 'MembershipType' }, { Column: 'Status', Field: 'MembershipStatus' }, { Column: 'Start Date', Field: 'MembershipStartDate' },
      { Column: 'End Date', Field: 'MembershipEndDate' }, { Column: 'Street Address', Field: 'AddressLine1' }, { Column: 'Supplemental Address 1', Field: 'AddressLine2' },
      { Column: 'City', Field: 'City' }, { Column: 'State/Province', Field: 'State' }, { Column: 'Postal Code', Field: 'PostalCode' }, { Column: 'Country', Field: 'Country' },
      { Column: 'Phone', Field: 'Phone' }, { Column: 'Mobile', Field: 'MobilePhone' }, { Column: 'Web Page', Field: 'Website' },
    ]);
    expect(preview.SuggestedMatchOn).toBe('ExternalId');
    const viaRest = await rest(server, 'GET', `/api/imports/${importId}/preview`, { token: acme.staffToken });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ ImportId: importId, Delimiter: ';', RowsTotal: 9, SuggestedMatchOn: 'ExternalId' });
  });

  it('dry-runs (REST start): every row\'s outcome, nothing written', async () => {
    const started = await rest(server, 'POST', `/api/imports/${importId}/start`, { token: acme.staffToken, body: { DryRun: true } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ State: 'queued', DryRun: true, MatchOn: 'ExternalId' });
    const status = await finished(importId);
    expect(status).toMatchObject({ State: 'completed', DryRun: true, RowsDone: 9, Progress: 100, Created: 2, Updated: 0, Unchanged: 1, Rejected: 6 });
    const rows = await graphql(server, ROWS, { id: importId, o: { DryRun: true } }, acme.staffToken);
    expect(rows.body.data.contactImportRows.Total).toBe(9);
    expect(rows.body.data.contactImportRows.Results.map(({ RowNumber, Outcome, Reason }: Record<string, unknown>) => ({ RowNumber, Outcome, Reason }))).toEqual(MESSY_OUTCOMES);
    // Nothing was kept: a contact the import would create has no id.
    expect(rows.body.data.contactImportRows.Results.map((row: { ContactId: number | null }) => row.ContactId)).toEqual(MESSY_OUTCOMES.map(() => null));
    expect(await db('select id from contact_import_dry_contact where contact_import_id = ?', [importId])).toEqual([]); // forgotten once the dry run completed
    expect(await db(`select id from contact where tenant_id = ? and (email like '%@example.org' or kind = 'organization')`, [acme.id])).toEqual([]);
    expect(await db('select id from membership where tenant_id = ?', [acme.id])).toEqual([]);
  });

  it('imports (GraphQL start) with the same outcomes, and a report of the rejected rows in the file\'s columns', async () => {
    const started = await graphql(server, START, { id: importId, input: { DryRun: false } }, acme.staffToken);
    expect(started.body.errors).toBeUndefined();
    const status = await finished(importId);
    expect(status).toMatchObject({ State: 'completed', DryRun: false, RowsDone: 9, Created: 2, Updated: 0, Unchanged: 1, Rejected: 6 });

    const people = await db<{ first_name: string; last_name: string; email: string; organization: string | null }>(
      `select c.first_name, c.last_name, c.email, o.name as organization from contact c left join contact o on o.id = c.organization_id
        where c.tenant_id = ? and c.kind = 'person' and c.email like '%@example.org' order by c.id`, [acme.id]);
    expect(people).toEqual([
      { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.org', organization: 'Analytical; Engines' },
      { first_name: 'Grace\r\nBrewster', last_name: 'Hopper', email: 'grace@example.org', organization: null },
    ]);
    // The address block is the primary address (the contact's address shape); Phone and Mobile its phones, Web Page its website.
    const ADDRESSES = `query($id: Int!) { contact(contactId: $id) { Phones { PhoneNumber IsPrimary } Addresses { Line1 Line2 City State PostalCode Country IsPrimary } Websites { Url IsPrimary } } }`;
    const [grace] = await db<{ id: number }>(`select id from contact where tenant_id = ? and email = 'grace@example.org'`, [acme.id]);
    const graceViewed = await graphql(server, ADDRESSES, { id: grace.id }, acme.staffToken);
    expect(graceViewed.body.data.contact).toEqual({
      Phones: [{ PhoneNumber: '+1 555 0101', IsPrimary: true }, { PhoneNumber: '+1 555 0102', IsPrimary: false }],
      Addresses: [{ Line1: '1 Navy Way', Line2: 'Suite 2; Floor 3', City: 'Arlington', State: 'VA', PostalCode: '22202', Country: 'USA', IsPrimary: true }],
      Websites: [],
    });
    const [ada] = await db<{ id: number }>(`select id from contact where tenant_id = ? and email = 'ada@example.org'`, [acme.id]);
    const adaViewed = await rest(server, 'GET', `/api/contacts/${ada.id}`, { token: acme.staffToken });
    expect(adaViewed.body).toMatchObject({
      PhoneNumber: '+44 20 7946 0000', Websites: [{ Url: 'https://ada.example.org', IsPrimary: true }],
      Addresses: [{ Line1: "12 St James's Square", Line2: null, City: 'London', State: null, PostalCode: 'SW1Y 4JH', Country: 'UK', IsPrimary: true }],
    });
    expect(await db(`select r.role from contact_relationship r where r.tenant_id = ?`, [acme.id])).toEqual([{ role: 'Founder' }]);
    expect(await db(`select m.start_date::text, m.end_date::text, m.status from membership m where m.tenant_id = ? order by m.start_date`, [acme.id])).toEqual([
      { start_date: '2026-01-01', end_date: '2026-12-31', status: 'active' },
      { start_date: '2026-02-01', end_date: '2027-01-31', status: 'active' }, // the type's term end
    ]);
    expect(await db(`select external_id from contact_external_id where tenant_id = ? order by external_id`, [acme.id])).toEqual([{ external_id: 'A1' }, { external_id: 'A2' }]);

    const where = await graphql(server, 'query($id: Int!) { contactImportRejectedCsv(importId: $id) { FileName MediaType Url } }', { id: importId }, acme.staffToken);
    expect(where.body.data.contactImportRejectedCsv).toEqual({ FileName: `rejected-${importId}.csv`, MediaType: 'text/csv; charset=utf-8', Url: `/api/imports/${importId}/rejected` });
    const report = await rest(server, 'GET', `/api/imports/${importId}/rejected`, { token: acme.staffToken });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines: string[][] = parse(report.text, {});
    expect(lines[0]).toEqual([
      'External Identifier', 'First Name', 'Last Name', 'Email', 'Organization', 'Role', 'Membership Type', 'Status', 'Start Date', 'End Date',
      'Street Address', 'Supplemental Address 1', 'City', 'State/Province', 'Postal Code', 'Country', 'Phone', 'Mobile', 'Web Page', 'ImportError',
    ]);
    expect(lines.slice(1).map((line) => [line[0], line[19]])).toEqual(MESSY_OUTCOMES.filter((row) => row.Reason).map((row, index) => [`A${index + 3}`, row.Reason]));

    // Fixed and imported again, the report creates what was rejected.
    const fixed = report.text.replace('2026-13-45', '2026-03-01').replace('Zombie', 'Active').replace('Platinum', 'Gold').replace('A6,,,', 'A6,Nobody,,').replace('not-an-email', 'barbara@example.org')
      .replace('ftp://', 'https://');
    const again = await importFile(fixed);
    expect(again).toMatchObject({ State: 'completed', Created: 6, Rejected: 0 });
  });

  it('imports the same file again without duplicating: it matches on ExternalId and changes nothing', async () => {
    const before = await db('select id, audit_id from contact where tenant_id = ? order by id', [acme.id]);
    const status = await importFile(MESSY);
    expect(status).toMatchObject({ State: 'completed', Created: 0, Updated: 0, Unchanged: 3, Rejected: 6 });
    expect(await db('select id, audit_id from contact where tenant_id = ? order by id', [acme.id])).toEqual(before);
  });

  it('lists rejected rows of the import over REST, and refuses bad mappings', async () => {
    const rows = await rest(server, 'GET', `/api/imports/${importId}/rows?options=${encodeURIComponent(JSON.stringify({ Outcome: 'rejected', Take: 2 }))}`, { token: acme.staffToken });
    expect(rows.status).toBe(200);
    expect(rows.body.Total).toBe(6);
    expect(rows.body.Results.map((row: { RowNumber: number }) => row.RowNumber)).toEqual([4, 5]);
    const unknownColumn = await rest(server, 'POST', `/api/imports/${importId}/start`, { token: acme.staffToken, body: { Mapping: [{ Column: 'Nope', Field: 'Email' }] } });
    expect(unknownColumn.status).toBe(400);
    expect(unknownColumn.body.errors?.[0]?.field ?? unknownColumn.text).toContain('Mapping[0].Column');
    const unmappedKey = await rest(server, 'POST', `/api/imports/${importId}/start`, { token: acme.staffToken, body: { MatchOn: 'NationalID' } });
    expect(unmappedKey.status).toBe(400);
    expect(unmappedKey.text).toContain('MatchOn');
    const twice = await rest(server, 'POST', `/api/imports/${importId}/start`, { token: acme.staffToken, body: { Mapping: [{ Column: 'Email', Field: 'Email' }, { Column: 'Role', Field: 'Email' }] } });
    expect(twice.status).toBe(400);
  });

  it('refuses a file that is not a readable CSV (400) and keeps nothing of it', async () => {
    const files = await db('select count(*)::int as n from stored_file where tenant_id = ?', [acme.id]);
    const broken = await upload('Email,First Name\n"unclosed,Ada\n');
    expect(broken.status).toBe(400);
    expect(broken.text).toContain('file');
    const empty = await upload('\n\n');
    expect(empty.status).toBe(400);
    expect(await db('select count(*)::int as n from stored_file where tenant_id = ?', [acme.id])).toEqual(files);
  });
});

describe('custom fields', () => {
  it('reads custom-field columns by cf:<key> or label, with the custom fields\' rules, and writes them in their text form', async () => {
    const em = server.orm.em.fork();
    em.create(CustomField, { tenant: acme.id, appliesTo: 'person', key: 'tshirt', label: 'T-shirt size', kind: 'choice', choices: ['S', 'M', 'L'], required: false, visibility: 'staff', position: 1 });
    em.create(CustomField, { tenant: acme.id, appliesTo: 'person', key: 'skills', label: 'Skills', kind: 'multi_choice', choices: ['Math', 'Code', 'Poetry'], required: false, visibility: 'staff', position: 2 });
    em.create(CustomField, { tenant: acme.id, appliesTo: 'membership', key: 'paid_by', label: 'Paid by', kind: 'text', choices: [], required: false, visibility: 'staff', position: 1 });
    await em.flush();
    const csv = [
      'ExternalId,FirstName,T-shirt size,cf:skills,cf:membership:paid_by,MembershipType,MembershipStartDate',
      'D1,Dora,m,Poetry; math,=cash,Gold,2026-01-01',
      'D2,Dan,XXL,,,,',
      'D3,Dee,S,Juggling,,,',
    ].join('\n');
    const uploaded = await upload(csv);
    const preview = await rest(server, 'GET', `/api/imports/${uploaded.body.ImportId}/preview`, { token: acme.staffToken });
    expect(preview.body.SuggestedMapping.slice(2, 5)).toEqual([
      { Column: 'T-shirt size', Field: 'cf:tshirt' }, { Column: 'cf:skills', Field: 'cf:skills' }, { Column: 'cf:membership:paid_by', Field: 'cf:membership:paid_by' },
    ]);
    await graphql(server, START, { id: uploaded.body.ImportId, input: {} }, acme.staffToken);
    const status = await finished(uploaded.body.ImportId as number);
    expect(status).toMatchObject({ Created: 1, Rejected: 2 });
    const rows = await graphql(server, ROWS, { id: status.ImportId, o: { Outcome: 'rejected' } }, acme.staffToken);
    expect(rows.body.data.contactImportRows.Results.map((row: { Reason: string }) => row.Reason)).toEqual([
      'CustomFields.tshirt: "XXL" is not one of the choices (S, M, L)', expect.stringMatching(/^CustomFields\.skills: "Juggling" is not one of the choices/),
    ]);
    expect(await db(`select c.custom_fields as contact, m.custom_fields as term from contact c join membership m on m.contact_id = c.id where c.tenant_id = ? and c.first_name = 'Dora'`, [acme.id]))
      .toEqual([{ contact: { tshirt: 'M', skills: ['Math', 'Poetry'] }, term: { paid_by: '=cash' } }]);
  });
});

describe('export', () => {
  it('exports (REST and GraphQL) in the import\'s columns, and the export re-imported changes nothing', async () => {
    // A contact saved by staff with every part a row carries, and more than one address and website (only the primary ones are columns).
    const saved = await graphql(server, `mutation($input: ContactInput!) { saveContact(contactId: 0, input: $input) { ContactId } }`, { input: {
      Kind: 'person', Prefix: 'Rear Adm.', FirstName: 'Gracie', MiddleName: 'B.', LastName: 'Saved', Suffix: 'PhD', Title: 'Commodore', JobTitle: 'Programmer',
      Addresses: [{ Kind: 'Mailing', Line1: 'PO Box 1', City: 'Arlington' }, { Kind: 'Physical', Line1: '1 Navy Way', Line2: 'Suite 2', City: 'Arlington', State: 'VA', PostalCode: '22202', Country: 'US', IsPrimary: true }],
      Websites: [{ Url: 'https://blog.example.org', Kind: 'Blog' }, { Url: 'https://gracie.example.org', IsPrimary: true }],
    } }, acme.staffToken);
    expect(saved.body.errors).toBeUndefined();
    const where = await graphql(server, '{ contactExportCsv { FileName MediaType Url } }', {}, acme.staffToken);
    expect(where.body.data.contactExportCsv).toEqual({ FileName: 'contacts.csv', MediaType: 'text/csv; charset=utf-8', Url: '/api/exports/contacts' });
    const exported = await rest(server, 'GET', '/api/exports/contacts', { token: acme.staffToken });
    expect(exported.status).toBe(200);
    const lines: string[][] = parse(exported.text, {});
    expect(lines[0]).toEqual([
      'ContactId', 'ExternalId', 'Kind', 'NationalID', 'FirstName', 'LastName', 'Name', 'Email', 'Phone', 'MobilePhone', 'JobTitle',
      'Prefix', 'MiddleName', 'Suffix', 'Title', 'AddressLine1', 'AddressLine2', 'City', 'State', 'PostalCode', 'Country', 'Website', 'Organization', 'OrganizationRole',
      'MembershipType', 'MembershipLevel', 'MembershipStatus', 'MembershipJoinDate', 'MembershipStartDate', 'MembershipEndDate', 'cf:tshirt', 'cf:skills', 'cf:membership:paid_by',
    ]);
    const dora = lines.find((line) => line[4] === 'Dora')!;
    expect(dora.slice(30)).toEqual(['M', 'Math; Poetry', "'=cash"]); // a formula-like cell is quoted for spreadsheets, and read back without the quote
    expect(lines[1]).toMatchObject({ 2: 'organization', 6: 'Analytical; Engines' }); // organizations first
    const ada = lines.find((line) => line[4] === 'Ada')!;
    expect(ada.slice(1, 3)).toEqual(['A1', 'person']);
    // A phone's leading + is quoted like a formula's (exportCell) and read back without the quote.
    expect(ada.slice(8, 22)).toEqual(["'+44 20 7946 0000", '', '', '', '', '', '', "12 St James's Square", '', 'London', '', 'SW1Y 4JH', 'UK', 'https://ada.example.org']);
    expect(lines.find((line) => line[4] === 'Gracie')!.slice(10, 22)).toEqual([
      'Programmer', 'Rear Adm.', 'B.', 'PhD', 'Commodore', '1 Navy Way', 'Suite 2', 'Arlington', 'VA', '22202', 'US', 'https://gracie.example.org',
    ]);
    expect(ada.slice(22)).toEqual(['Analytical; Engines', 'Founder', 'Gold', '', 'active', '2026-01-01', '2026-01-01', '2026-12-31', '', '', '']); // joined when the term started

    const before = await db('select id, audit_id from contact where tenant_id = ? order by id', [acme.id]);
    const terms = await db('select id, audit_id from membership where tenant_id = ? order by id', [acme.id]);
    const relationships = await db('select id, audit_id from contact_relationship where tenant_id = ? order by id', [acme.id]);
    const status = await importFile(exported.text);
    expect(status).toMatchObject({ State: 'completed', MatchOn: 'ContactId', Created: 0, Updated: 0, Rejected: 0, Unchanged: lines.length - 1 });
    expect(await db('select id, audit_id from contact where tenant_id = ? order by id', [acme.id])).toEqual(before);
    expect(await db(`select addresses, websites from contact where tenant_id = ? and last_name = 'Saved'`, [acme.id])).toEqual([{
      addresses: [
        { kind: 'physical', line1: '1 Navy Way', line2: 'Suite 2', city: 'Arlington', region: 'VA', postalCode: '22202', country: 'US', isPrimary: true },
        { kind: 'mailing', line1: 'PO Box 1', city: 'Arlington', isPrimary: false },
      ],
      websites: [{ url: 'https://gracie.example.org', kind: null, isPrimary: true }, { url: 'https://blog.example.org', kind: 'Blog', isPrimary: false }],
    }]);
    expect(await db('select id, audit_id from membership where tenant_id = ? order by id', [acme.id])).toEqual(terms);
    expect(await db('select id, audit_id from contact_relationship where tenant_id = ? order by id', [acme.id])).toEqual(relationships);
  });
});

describe('rules an import keeps', () => {
  it('reads an address block as the primary address: parts replace the primary\'s, an empty block clears it (the next becomes primary), a bad value names its column', async () => {
    const [gracie] = await db<{ id: number }>(`select id from contact where tenant_id = ? and last_name = 'Saved'`, [acme.id]);
    const header = 'ContactId,Address Line 1,Address Line 2,City,State,Zip,Country,Website,Individual Prefix,Middle Name';
    const moved = await importFile(`${header}\n${gracie.id},2 Navy Way,,Arlington,VA,22202,US,https://gracie.example.org,,B.\n`);
    expect(moved).toMatchObject({ MatchOn: 'ContactId', Updated: 1, Rejected: 0 });
    const ADDRESSES = 'query($id: Int!) { contact(contactId: $id) { Prefix MiddleName Addresses { Kind Line1 Line2 IsPrimary } Websites { Url IsPrimary } } }';
    expect((await graphql(server, ADDRESSES, { id: gracie.id }, acme.staffToken)).body.data.contact).toEqual({
      Prefix: null, MiddleName: 'B.', // an empty mapped cell clears
      Addresses: [{ Kind: 'physical', Line1: '2 Navy Way', Line2: null, IsPrimary: true }, { Kind: 'mailing', Line1: 'PO Box 1', Line2: null, IsPrimary: false }],
      Websites: [{ Url: 'https://gracie.example.org', IsPrimary: true }, { Url: 'https://blog.example.org', IsPrimary: false }],
    });
    const cleared = await importFile(`${header}\n${gracie.id},,,,,,,,,B.\n`);
    expect(cleared).toMatchObject({ Updated: 1, Rejected: 0 });
    expect((await graphql(server, ADDRESSES, { id: gracie.id }, acme.staffToken)).body.data.contact).toMatchObject({
      Addresses: [{ Kind: 'mailing', Line1: 'PO Box 1', IsPrimary: true }], Websites: [{ Url: 'https://blog.example.org', IsPrimary: true }],
    });

    const bad = await importFile([header,
      `${gracie.id},${'x'.repeat(201)},,,,,,,,`, `${gracie.id},,,,,${'9'.repeat(21)},,,,`, `${gracie.id},,,,,,,not a url,,`, `${gracie.id},,,,,,,,${'Dr'.repeat(11)},`].join('\n'));
    expect(bad).toMatchObject({ Rejected: 4, Updated: 0 });
    const rows = await graphql(server, ROWS, { id: bad.ImportId, o: { Outcome: 'rejected' } }, acme.staffToken);
    expect(rows.body.data.contactImportRows.Results.map((row: { Reason: string }) => row.Reason)).toEqual([
      'AddressLine1: must be shorter than or equal to 200 characters', 'PostalCode: must be shorter than or equal to 20 characters',
      'Website: must be an http(s) URL', 'Prefix: must be shorter than or equal to 20 characters',
    ]);
  });

  it('rejects a likely duplicate (a new contact with a live contact\'s e-mail) and a taken NationalID, and updates by the chosen key', async () => {
    const csv = [
      'ExternalId,FirstName,LastName,Email,NationalID,MembershipType,MembershipStartDate',
      'B1,Ada,Byron,ada@example.org,,,', // A1 holds ada@example.org: not created twice
      'B2,Ann,Other,ann@example.org,N-1,,',
      'B3,Bea,Other,bea@example.org,N-1,,', // N-1 taken by B2 a row earlier
      'B4,Cy,Other,cy@example.org,,Retired,2026-01-01', // an inactive type takes no new members
    ].join('\n');
    const status = await importFile(csv);
    expect(status).toMatchObject({ Created: 1, Rejected: 3 });
    const rows = await graphql(server, ROWS, { id: status.ImportId, o: { Outcome: 'rejected' } }, acme.staffToken);
    expect(rows.body.data.contactImportRows.Results.map((row: { Reason: string }) => row.Reason)).toEqual([
      expect.stringMatching(/^Email: likely duplicate of ContactId \d+ \(same e-mail\): match on Email/),
      'NationalID: is taken by the contact of row 2',
      'MembershipType: is inactive: it takes no new members',
    ]);
    // Matched on Email, the same person is updated instead.
    const byEmail = await importFile('Email,JobTitle\nADA@example.org,Countess\n', { MatchOn: 'Email' });
    expect(byEmail).toMatchObject({ Created: 0, Updated: 1 });
    expect(await db(`select email, job_title from contact where tenant_id = ? and lower(email) = 'ada@example.org'`, [acme.id])).toEqual([{ email: 'ADA@example.org', job_title: 'Countess' }]);
  });
});

describe('the contacts service\'s rules', () => {
  it('refuses an e-mail address or phone number that a staff save refuses, naming the row in the report of rejected rows', async () => {
    const notAddresses = ['jane..doe@example.com', 'ann@example.c', 'bob@example.com.'];
    for (const address of notAddresses) {
      const saved = await rest(server, 'POST', '/api/contacts/0', { token: acme.staffToken, body: { Kind: 'person', LastName: 'Rule', Emails: [{ EmailAddress: address }] } });
      expect({ address, status: saved.status }).toEqual({ address, status: 400 });
    }
    const csv = ['ExternalId,FirstName,LastName,Email,Phone,Mobile',
      ...notAddresses.map((address, index) => `E${index},Eve,Rule,${address},,`),
      'E3,Eve,Rule,eve@example.org,call me,',
      'E4,Eve,Rule,eve4@example.org,+1 555 0199,n/a',
      'E5,Eve,Rule,eve5@example.org,+1 (555) 0199,+1 555-0198'].join('\n');
    const status = await importFile(csv);
    expect(status).toMatchObject({ State: 'completed', Created: 1, Rejected: 5 });
    const report = await rest(server, 'GET', `/api/imports/${status.ImportId as number}/rejected`, { token: acme.staffToken });
    expect(report.status).toBe(200);
    const lines: string[][] = parse(report.text, {});
    expect(lines.map((line) => [line[0], line[line.length - 1]])).toEqual([
      ['ExternalId', 'ImportError'],
      ...notAddresses.map((_address, index) => [`E${index}`, 'Email: must be an e-mail address']),
      ['E3', 'Phone: must be digits, spaces and + ( ) . / -'],
      ['E4', 'MobilePhone: must be digits, spaces and + ( ) . / -'],
    ]);
  });
});

describe('dry runs', () => {
  it('answer the outcomes the import then has, a key repeated in a later batch included, with no id for a contact never kept', async () => {
    const [{ id: existingId }] = await db<{ id: number }>(`select c.id from contact c join contact_external_id x on x.contact_id = c.id where x.tenant_id = ? and x.external_id = 'A1'`, [acme.id]);
    const csv = [
      'ExternalId,FirstName,LastName,Email,Organization,MembershipType,MembershipStartDate',
      'R1,Dee,Dry,dee@example.org,Dry Goods,Gold,2026-01-01', // batch 1: creates Dee, the organization and a term
      'R2,Dan,Dry,dan@example.org,,,',
      'A1,Ada,Lovelace,ADA@example.org,,,', // an existing contact, unchanged
      'R1,Dee,Dry,dee@example.org,Dry Goods,Gold,2026-01-01', // batch 2: the same row again: unchanged
      'R1,Dee,Drier,dee@example.org,Dry Goods,Gold,2026-01-01', // changed
      'R3,Dot,Dry,dan@example.org,,,', // Dan's e-mail, from batch 1: a likely duplicate
      'R2,Dan,Dry,dan@example.org,Dry Goods,Gold,2026-02-01', // batch 3: Dan joins the organization made in batch 1, and gets a term
      'R4,Del,Dry,del@example.org,dry goods,,', // the same organization (names compare without case)
    ].join('\n');
    const uploaded = await upload(csv);
    const importId = uploaded.body.ImportId as number;
    const outcomes = async (dryRun: boolean) => {
      const started = await graphql(server, START, { id: importId, input: { DryRun: dryRun, MatchOn: 'ExternalId' } }, acme.staffToken);
      expect(started.body.errors).toBeUndefined();
      const status = await finished(importId);
      const rows = await rest(server, 'GET', `/api/imports/${importId}/rows?options=${encodeURIComponent(JSON.stringify({ DryRun: dryRun }))}`, { token: acme.staffToken });
      expect(rows.status).toBe(200);
      return { status, rows: rows.body.Results as { RowNumber: number; Outcome: string; Reason: string | null; ContactId: number | null }[] };
    };
    const dry = await outcomes(true);
    expect(dry.rows.map((row) => [row.Outcome, row.Reason])).toEqual([
      ['created', null], ['created', null], ['unchanged', null],
      ['unchanged', null], ['updated', null], ['rejected', expect.stringMatching(/^Email: likely duplicate of the contact of row 2 \(same e-mail\)/)],
      ['updated', null], ['created', null],
    ]);
    expect(dry.rows.map((row) => row.ContactId)).toEqual([null, null, existingId, null, null, null, null, null]);
    expect(await db(`select id from contact where tenant_id = ? and (last_name in ('Dry', 'Drier') or name = 'Dry Goods')`, [acme.id])).toEqual([]);

    const real = await outcomes(false);
    expect(real.status).toMatchObject({ Created: dry.status.Created, Updated: dry.status.Updated, Unchanged: dry.status.Unchanged, Rejected: dry.status.Rejected });
    expect(dry.status).toMatchObject({ Created: 3, Updated: 2, Unchanged: 2, Rejected: 1 });
    // The import keeps only its rejected rows; each has the dry run's reason but for how it names the other contact.
    const [dan] = await db<{ id: number }>(`select id from contact where tenant_id = ? and email = 'dan@example.org'`, [acme.id]);
    expect(real.rows.map((row) => [row.RowNumber, row.Reason])).toEqual([[6, expect.stringMatching(new RegExp(`^Email: likely duplicate of ContactId ${dan.id} `))]]);
    expect(await db(`select c.first_name, c.last_name, o.name as organization, (select count(*)::int from membership m where m.contact_id = c.id) as terms
      from contact c left join contact o on o.id = c.organization_id where c.tenant_id = ? and c.last_name in ('Dry', 'Drier') order by c.first_name`, [acme.id])).toEqual([
      { first_name: 'Dan', last_name: 'Dry', organization: 'Dry Goods', terms: 1 },
      { first_name: 'Dee', last_name: 'Drier', organization: 'Dry Goods', terms: 1 },
      { first_name: 'Del', last_name: 'Dry', organization: 'Dry Goods', terms: 0 },
    ]);
    expect(await db(`select count(*)::int as n from contact where tenant_id = ? and name = 'Dry Goods'`, [acme.id])).toEqual([{ n: 1 }]);
  });
});

describe('join dates', () => {
  it('a first term joins on its start; a renewal (in the same batch or a later one) keeps the join date of the term it follows', async () => {
    const csv = [
      'ExternalId,FirstName,LastName,MembershipType,MembershipStartDate,MembershipEndDate',
      'J1,Jo,Joiner,Gold,2024-01-01,2024-12-31',
      'J1,Jo,Joiner,Gold,2025-01-01,2025-12-31', // renews row 1 in the same batch
      'J2,Jay,Joiner,Gold,2025-03-01,2026-02-28',
      'J2,Jay,Joiner,Gold,2026-03-01,2027-02-28', // renews row 3 from the next batch
      'J3,Jem,Joiner,Gold,2026-01-01,',
    ].join('\n');
    expect(await importFile(csv)).toMatchObject({ State: 'completed', Created: 3, Updated: 2, Rejected: 0 });
    expect(await db(`select c.first_name, m.start_date::text as start, m.join_date::text as joined from membership m join contact c on c.id = m.contact_id
      where m.tenant_id = ? and c.last_name = 'Joiner' order by c.first_name, m.start_date`, [acme.id])).toEqual([
      { first_name: 'Jay', start: '2025-03-01', joined: '2025-03-01' },
      { first_name: 'Jay', start: '2026-03-01', joined: '2025-03-01' },
      { first_name: 'Jem', start: '2026-01-01', joined: '2026-01-01' },
      { first_name: 'Jo', start: '2024-01-01', joined: '2024-01-01' },
      { first_name: 'Jo', start: '2025-01-01', joined: '2024-01-01' },
    ]);
  });

  it('an empty join date cell keeps an existing term\'s join date (a term always has one)', async () => {
    const csv = ['ExternalId,FirstName,LastName,MembershipType,MembershipJoinDate,MembershipStartDate,MembershipEndDate',
      'J9,Kim,Keeper,Gold,2020-05-01,2026-01-01,2026-12-31'].join('\n');
    expect(await importFile(csv)).toMatchObject({ State: 'completed', Created: 1, Rejected: 0 });
    expect(await importFile(csv.replace('2020-05-01', ''))).toMatchObject({ State: 'completed', Rejected: 0 });
    expect(await db(`select m.join_date::text as joined from membership m join contact c on c.id = m.contact_id
      where m.tenant_id = ? and c.last_name = 'Keeper'`, [acme.id])).toEqual([{ joined: '2020-05-01' }]);
  });
});

describe('concurrency and isolation', () => {
  it('two imports of one file at once create each contact once', async () => {
    const csv = ['ExternalId,FirstName,LastName,Email,MembershipType,MembershipStartDate',
      ...Array.from({ length: 30 }, (_, index) => `C${index},Twin${index},Concurrent,twin${index}@example.org,Gold,2026-01-01`)].join('\n');
    const first = await upload(csv, other.staffToken);
    const second = await upload(csv, other.staffToken);
    await Promise.all([first, second].map((uploaded) => graphql(server, START, { id: uploaded.body.ImportId, input: {} }, other.staffToken)));
    const statuses = await Promise.all([first, second].map((uploaded) => finished(uploaded.body.ImportId as number, other)));
    expect(statuses.map((status) => status.State)).toEqual(['completed', 'completed']);
    expect(statuses.reduce((sum, status) => sum + (status.Created as number), 0)).toBe(30);
    expect(await db(`select count(*)::int as n, count(distinct email)::int as emails from contact where tenant_id = ? and last_name = 'Concurrent'`, [other.id])).toEqual([{ n: 30, emails: 30 }]);
    expect(await db(`select count(*)::int as n from membership where tenant_id = ?`, [other.id])).toEqual([{ n: 30 }]);
  });

  it('keeps imports, their files, rows and reports, and exports to their tenant', async () => {
    const [{ id: importId }] = await db<{ id: number }>('select id from contact_import where tenant_id = ? order by id limit 1', [acme.id]);
    for (const [method, path] of [['GET', `/api/imports/${importId}`], ['GET', `/api/imports/${importId}/preview`], ['GET', `/api/imports/${importId}/rows`],
      ['GET', `/api/imports/${importId}/rejected`], ['POST', `/api/imports/${importId}/start`], ['POST', `/api/imports/${importId}/cancel`]] as const) {
      const response = await rest(server, method, path, { token: other.staffToken, body: method === 'POST' ? {} : undefined });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    const viaGraphql = await graphql(server, STATUS, { id: importId }, other.staffToken);
    expect(viaGraphql.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
    const exported = await rest(server, 'GET', '/api/exports/contacts', { token: other.staffToken });
    expect(exported.text).not.toContain('Lovelace');
    expect(exported.text).toContain('Concurrent');
  });

  it('cancels a run under way (REST and GraphQL): it stops, and a finished import cannot be cancelled', async () => {
    const csv = ['ExternalId,FirstName', ...Array.from({ length: 3000 }, (_, index) => `K${index},Kay${index}`)].join('\n');
    const uploaded = await upload(csv);
    await rest(server, 'POST', `/api/imports/${uploaded.body.ImportId}/start`, { token: acme.staffToken, body: {} });
    const cancelled = await rest(server, 'POST', `/api/imports/${uploaded.body.ImportId}/cancel`, { token: acme.staffToken });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.State).toBe('cancelled');
    const again = await graphql(server, 'mutation($id: Int!) { cancelContactImport(importId: $id) { State } }', { id: uploaded.body.ImportId }, acme.staffToken);
    expect(again.body.errors?.[0]?.extensions.code).toBe('CONFLICT');
    const status = await finished(uploaded.body.ImportId as number);
    expect(status.State).toBe('cancelled');
    expect(status.RowsDone as number).toBeLessThan(3000);
  });
});
