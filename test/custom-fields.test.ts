import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact } from '../src/entities/index.js';
import { customFieldCell, type CustomFieldDefinition } from '../src/services/custom-fields/values.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, rest, startTestServer, useRaceServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

// 401/403/400 shapes, tenant isolation and the fuzz of every operation: test/sweeps.test.ts. Here: the area's own rules.
let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'custom-fields-acme');
  other = await createTestTenant(server, 'custom-fields-other');
});
afterAll(() => server.close());

type Body = Record<string, any>;
const call = (method: string, path: string, body?: Body, token = acme.staffToken) => rest(server, method, path, { token, body });
const defineField = (body: Body, id = 0, token = acme.staffToken) => call('POST', `/api/customfields/${id}`, body, token);
const saveContact = (id: number, body: Body, token = acme.staffToken) => call('POST', `/api/contacts/${id}`, body, token);
const listContacts = (body: Body, token = acme.staffToken) => call('POST', '/api/contacts/items', body, token);
const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => server.orm.em.fork().getConnection().execute<T[]>(text, params);

async function ok(response: Promise<HttpResult> | HttpResult): Promise<Body> {
  const answer = await response;
  expect({ status: answer.status, text: answer.status === 200 ? '' : answer.text }).toEqual({ status: 200, text: '' });
  return answer.body;
}

async function gql(query: string, variables: Body = {}, token = acme.staffToken): Promise<Body> {
  const response = await graphql(server, query, variables, token);
  expect(response.body.errors).toBeUndefined();
  return response.body.data as Body;
}

function expectProblem(response: HttpResult, status: number, field: string): void {
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status, type: expect.stringContaining('application/problem+json') });
  expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
}

let unique = 0;
function person(extra: Body = {}): Body {
  unique++;
  return { Kind: 'person', FirstName: `Custom${unique}`, LastName: `Person${unique}`, ...extra };
}

const FIELD_KEYS = 'CustomFieldId AppliesTo Key Label Kind Choices Required Visibility Position IsRetired RetiredDate AuditId Actions';

/** A field of each kind on people, defined once for the whole file. */
const kinds: Record<string, Body> = {};
beforeAll(async () => {
  const definitions: Body[] = [
    { Key: 'nickname', Label: 'Nickname', Kind: 'text', Visibility: 'public' },
    { Key: 'shoe_size', Label: 'Shoe size', Kind: 'number', Visibility: 'members' },
    { Key: 'joined_on', Label: 'Joined on', Kind: 'date', Visibility: 'staff' },
    { Key: 'region', Label: 'Region', Kind: 'choice', Choices: ['North', 'South', 'East West'], Visibility: 'public' },
    { Key: 'interests', Label: 'Interests', Kind: 'multi_choice', Choices: ['Golf', 'Chess', 'Hiking'], Visibility: 'members' },
    { Key: 'volunteer', Label: 'Volunteer', Kind: 'yes_no', Visibility: 'public' },
  ];
  for (const definition of definitions) kinds[definition.Kind] = await ok(defineField({ AppliesTo: 'person', ...definition }));
});

describe('defining custom fields', () => {
  it('defines, reads, lists and changes a field over REST', async () => {
    const field = await ok(defineField({ AppliesTo: 'organization', Key: 'founded', Label: 'Founded', Kind: 'number', Required: false, Visibility: 'public' }));
    expect(field).toEqual({
      CustomFieldId: expect.any(Number), AppliesTo: 'organization', Key: 'founded', Label: 'Founded', Kind: 'number', Choices: [], Required: false,
      Visibility: 'public', Position: 0, IsRetired: false, RetiredDate: null, AuditId: 1, Actions: expect.any(Array),
    });
    expect(await ok(call('GET', `/api/customfields/${field.CustomFieldId}`))).toEqual(field);
    const listed = await ok(rest(server, 'GET', '/api/customfields?appliesTo=organization', { token: acme.staffToken }));
    expect(listed.map((item: Body) => item.Key)).toContain('founded');
    const changed = await ok(defineField({ ...field, Label: 'Year founded', Position: 5 }, field.CustomFieldId));
    expect(changed).toMatchObject({ Label: 'Year founded', Position: 5, AuditId: 2 });
    // Stale AuditId: 409.
    expectProblem(await defineField({ ...field, Label: 'Again' }, field.CustomFieldId), 409, 'AuditId');
  });

  it('defines, reads, lists and changes a field over GraphQL', async () => {
    const { saveCustomField: field } = await gql(`mutation($input: CustomFieldInput!) { saveCustomField(customFieldId: 0, input: $input) { ${FIELD_KEYS} } }`,
      { input: { AppliesTo: 'membership', Key: 'referrer', Label: 'Referrer', Kind: 'text' } });
    expect(field).toMatchObject({ AppliesTo: 'membership', Key: 'referrer', Kind: 'text', Visibility: 'staff', Required: false, AuditId: 1 });
    const { customField } = await gql(`query($id: Int!) { customField(customFieldId: $id) { ${FIELD_KEYS} } }`, { id: field.CustomFieldId });
    expect(customField).toEqual(field);
    const { customFields } = await gql(`{ customFields(appliesTo: "membership") { Key } }`);
    expect(customFields).toContainEqual({ Key: 'referrer' });
    const { saveCustomField: changed } = await gql(`mutation($id: Int!, $input: CustomFieldInput!) { saveCustomField(customFieldId: $id, input: $input) { Label Required AuditId } }`,
      { id: field.CustomFieldId, input: { AppliesTo: 'membership', Key: 'referrer', Label: 'Referred by', Kind: 'text', Required: true, AuditId: 1 } });
    expect(changed).toEqual({ Label: 'Referred by', Required: true, AuditId: 2 });
    // Not required any more, so that the membership tests below need not send it.
    await gql(`mutation($id: Int!, $input: CustomFieldInput!) { saveCustomField(customFieldId: $id, input: $input) { AuditId } }`,
      { id: field.CustomFieldId, input: { AppliesTo: 'membership', Key: 'referrer', Label: 'Referred by', Kind: 'text', Required: false, AuditId: 2 } });
  });

  it('refuses bad definitions, naming the field', async () => {
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'Bad Key', Label: 'x', Kind: 'text' }), 400, 'Key');
    expectProblem(await defineField({ AppliesTo: 'planet', Key: 'planet', Label: 'x', Kind: 'text' }), 400, 'AppliesTo');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'colour', Label: 'x', Kind: 'colour' }), 400, 'Kind');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'pick', Label: 'x', Kind: 'choice' }), 400, 'Choices');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'pick', Label: 'x', Kind: 'choice', Choices: ['A', 'a'] }), 400, 'Choices');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'pick', Label: 'x', Kind: 'choice', Choices: ['A;B'] }), 400, 'Choices');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'words', Label: 'x', Kind: 'text', Choices: ['A'] }), 400, 'Choices');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'words', Label: ' ', Kind: 'text' }), 400, 'Label');
    expectProblem(await defineField({ AppliesTo: 'person', Key: 'nickname', Label: 'Again', Kind: 'text' }), 409, 'Key');
    // The same key on another target, or in another tenant, is another field.
    await ok(defineField({ AppliesTo: 'organization', Key: 'nickname', Label: 'Nickname', Kind: 'text' }));
    await ok(defineField({ AppliesTo: 'person', Key: 'nickname', Label: 'Nickname', Kind: 'text' }, 0, other.staffToken));
  });
});

describe('values on contacts', () => {
  it('stores every kind normalised, merges later saves, and answers the values over REST and GraphQL', async () => {
    const contact = await ok(saveContact(0, person({
      CustomFields: { nickname: '  Ace ', shoe_size: 42.5, joined_on: '2020-02-29', region: 'south', interests: ['hiking', 'Golf', 'golf'], volunteer: true },
    })));
    const stored = { nickname: 'Ace', shoe_size: 42.5, joined_on: '2020-02-29', region: 'South', interests: ['Golf', 'Hiking'], volunteer: true };
    expect(contact.CustomFields).toEqual(stored);
    expect(await sql('select custom_fields from contact where id = ?', [contact.ContactId])).toEqual([{ custom_fields: stored }]);

    // Keys left out are kept, null clears, CustomFields left out changes nothing.
    const second = await ok(saveContact(contact.ContactId, { ...person(), AuditId: contact.AuditId, CustomFields: { nickname: null, shoe_size: 0 } }));
    expect(second.CustomFields).toEqual({ shoe_size: 0, joined_on: '2020-02-29', region: 'South', interests: ['Golf', 'Hiking'], volunteer: true });
    const third = await ok(saveContact(contact.ContactId, { ...person(), AuditId: second.AuditId }));
    expect(third.CustomFields).toEqual(second.CustomFields);

    const { contact: read } = await gql(`query($id: Int!) { contact(contactId: $id) { CustomFields } }`, { id: contact.ContactId });
    expect(read.CustomFields).toEqual(second.CustomFields);
    const { saveContact: saved } = await gql(`mutation($id: Int!, $input: ContactInput!) { saveContact(contactId: $id, input: $input) { CustomFields AuditId } }`,
      { id: contact.ContactId, input: { ...person(), AuditId: third.AuditId, CustomFields: { volunteer: false, interests: [] } } });
    expect(saved.CustomFields).toEqual({ shoe_size: 0, joined_on: '2020-02-29', region: 'South', volunteer: false });
  });

  it.each([
    ['text', 'nickname', 12, 'x'.repeat(4000)],
    ['text', 'nickname', 'x'.repeat(4001), 'Bob'],
    ['number', 'shoe_size', '42', -3],
    ['number', 'shoe_size', 1e16, 1e15],
    ['date', 'joined_on', '2021-02-29', '2021-02-28'],
    ['date', 'joined_on', '28.02.2021', '9999-12-31'],
    ['choice', 'region', 'Middle', 'east west'],
    ['choice', 'region', ['North'], 'North'],
    ['multi_choice', 'interests', ['Golf', 'Polo'], ['Chess']],
    ['multi_choice', 'interests', 'Golf', ['Golf', 'Chess', 'Hiking']],
    ['yes_no', 'volunteer', 'yes', false],
  ])('%s field %s (case %#): refuses the first value (400 naming CustomFields.<key>), takes the second', async (_kind, key, bad, good) => {
    expectProblem(await saveContact(0, person({ CustomFields: { [key]: bad } })), 400, `CustomFields.${key}`);
    const contact = await ok(saveContact(0, person({ CustomFields: { [key]: good } })));
    expect(contact.CustomFields[key]).toBeDefined();
  });

  it('refuses unknown keys, a field of another target and a CustomFields that is not an object; reports every problem at once', async () => {
    expectProblem(await saveContact(0, person({ CustomFields: { no_such_field: 'x' } })), 400, 'CustomFields.no_such_field');
    // `founded` is an organization's field, not a person's.
    expectProblem(await saveContact(0, person({ CustomFields: { founded: 1999 } })), 400, 'CustomFields.founded');
    expectProblem(await saveContact(0, person({ CustomFields: ['x'] })), 400, 'CustomFields');
    const both = await saveContact(0, person({ CustomFields: { shoe_size: 'big', region: 'Nowhere' } }));
    expectProblem(both, 400, 'CustomFields.shoe_size');
    expectProblem(both, 400, 'CustomFields.region');
    const { saveContact: none } = (await graphql(server, `mutation($input: ContactInput!) { saveContact(contactId: 0, input: $input) { ContactId } }`,
      { input: person({ CustomFields: { shoe_size: 'big' } }) }, acme.staffToken)).body.data ?? { saveContact: null };
    expect(none).toBeNull();
  });
});

describe('the CSV text form of a value (customFieldCell, shared by import and export)', () => {
  it('formats every kind and parses it back unchanged; parses the usual spellings; refuses what normalising refuses', async () => {
    const definition = (kind: string) => ({ ...kinds[kind], key: kinds[kind].Key, kind, choices: kinds[kind].Choices, retiredAt: null }) as unknown as CustomFieldDefinition;
    const stored: [string, unknown, string][] = [
      ['text', 'Ace; of spades', 'Ace; of spades'], ['number', 0.0000001, '0.0000001'], ['number', -1234.5, '-1234.5'], ['date', '2020-02-29', '2020-02-29'],
      ['choice', 'East West', 'East West'], ['multi_choice', ['Golf', 'Hiking'], 'Golf; Hiking'], ['yes_no', true, 'Yes'], ['yes_no', false, 'No'],
    ];
    for (const [kind, value, cell] of stored) {
      expect(customFieldCell.format(definition(kind), value as never)).toBe(cell);
      expect(customFieldCell.parse(definition(kind), cell)).toEqual(value);
    }
    expect(customFieldCell.format(definition('text'), undefined)).toBe('');
    expect(customFieldCell.parse(definition('number'), '  ')).toBeNull();
    expect(customFieldCell.parse(definition('multi_choice'), 'hiking;golf;golf')).toEqual(['Golf', 'Hiking']);
    expect(customFieldCell.parse(definition('yes_no'), 'y')).toBe(true);
    expect(() => customFieldCell.parse(definition('number'), '1e5')).toThrow(/shoe_size/);
    expect(() => customFieldCell.parse(definition('date'), '02/29/2020')).toThrow(/joined_on/);
    expect(() => customFieldCell.parse(definition('choice'), 'Middle')).toThrow(/region/);
    expect(() => customFieldCell.parse(definition('yes_no'), 'maybe')).toThrow(/volunteer/);
  });
});

describe('values on memberships', () => {
  it('stores values on enrolment and change (REST and GraphQL), and a renewal carries them over', async () => {
    const type = await ok(call('POST', '/api/membershiptypes/0', { Name: 'Custom-field type', DurationMonths: 12 }));
    const em = server.orm.em.fork();
    const member = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Term', lastName: 'Holder' });
    await em.flush();
    const term = await ok(call('POST', '/api/memberships/0', {
      ContactId: member.id, MembershipTypeId: type.MembershipTypeId, Status: 'active', StartDate: '2024-01-01', CustomFields: { referrer: ' Ann ' },
    }));
    expect(term.CustomFields).toEqual({ referrer: 'Ann' });
    expectProblem(await call('POST', `/api/memberships/${term.MembershipId}`, { MembershipTypeId: type.MembershipTypeId, AuditId: term.AuditId, CustomFields: { referrer: 5 } }), 400, 'CustomFields.referrer');
    const { saveMembership: changed } = await gql(`mutation($id: Int!, $input: MembershipInput!) { saveMembership(membershipId: $id, input: $input) { CustomFields AuditId } }`,
      { id: term.MembershipId, input: { MembershipTypeId: type.MembershipTypeId, AuditId: term.AuditId, CustomFields: { referrer: 'Bea' } } });
    expect(changed.CustomFields).toEqual({ referrer: 'Bea' });
    const renewal = await ok(call('POST', `/api/memberships/${term.MembershipId}/renew/${changed.AuditId}`, {}));
    expect(renewal.CustomFields).toEqual({ referrer: 'Bea' });
  });
});

describe('changing and retiring fields', () => {
  it('refuses to change Key, AppliesTo, or Kind while values exist; allows Kind while none do', async () => {
    const field = await ok(defineField({ AppliesTo: 'person', Key: 'badge', Label: 'Badge', Kind: 'text' }));
    expectProblem(await defineField({ ...field, Key: 'badge_no' }, field.CustomFieldId), 400, 'Key');
    expectProblem(await defineField({ ...field, AppliesTo: 'organization' }, field.CustomFieldId), 400, 'AppliesTo');
    // No values yet: the kind may change.
    const asNumber = await ok(defineField({ ...field, Kind: 'number' }, field.CustomFieldId));
    expect(asNumber).toMatchObject({ Kind: 'number', AuditId: 2 });
    await ok(saveContact(0, person({ CustomFields: { badge: 7 } })));
    expectProblem(await defineField({ ...asNumber, Kind: 'text' }, field.CustomFieldId), 409, 'Kind');
  });

  it('adds and reorders choices freely, refuses to remove one in use (also on archived contacts)', async () => {
    const field = await ok(defineField({ AppliesTo: 'person', Key: 'tier', Label: 'Tier', Kind: 'multi_choice', Choices: ['Bronze', 'Silver', 'Gold'] }));
    const contact = await ok(saveContact(0, person({ CustomFields: { tier: ['Gold'] } })));
    await ok(call('DELETE', `/api/contacts/${contact.ContactId}/${contact.AuditId}`));
    const reordered = await ok(defineField({ ...field, Choices: ['Gold', 'Silver', 'Bronze', 'Platinum'] }, field.CustomFieldId));
    const withoutBronze = await ok(defineField({ ...reordered, Choices: ['Gold', 'Silver', 'Platinum'] }, field.CustomFieldId));
    const refused = await defineField({ ...withoutBronze, Choices: ['Silver', 'Platinum'] }, field.CustomFieldId);
    expectProblem(refused, 409, 'Choices');
    expect(refused.body.detail ?? refused.body.title).toContain('Gold');
  });

  it('required: every save must leave a value; a retired field keeps its values, is not required, and cannot change (REST and GraphQL)', async () => {
    const field = await ok(defineField({ AppliesTo: 'organization', Key: 'charter_no', Label: 'Charter number', Kind: 'text', Required: true }));
    expectProblem(await saveContact(0, { Kind: 'organization', Name: 'Org without charter' }), 400, 'CustomFields.charter_no');
    const org = await ok(saveContact(0, { Kind: 'organization', Name: 'Chartered org', CustomFields: { charter_no: 'C-1' } }));
    expectProblem(await saveContact(org.ContactId, { Kind: 'organization', Name: 'Chartered org', AuditId: org.AuditId, CustomFields: { charter_no: null } }), 400, 'CustomFields.charter_no');

    const retired = await ok(call('POST', `/api/customfields/${field.CustomFieldId}/retire/${field.AuditId}`));
    expect(retired).toMatchObject({ IsRetired: true, RetiredDate: expect.any(String), AuditId: field.AuditId + 1 });
    expectProblem(await call('POST', `/api/customfields/${field.CustomFieldId}/retire/${field.AuditId}`), 409, 'AuditId');
    // Not required any more; the value is kept and read; sending it back unchanged is fine, changing it is not.
    await ok(saveContact(0, { Kind: 'organization', Name: 'Org after retirement' }));
    const kept = await ok(saveContact(org.ContactId, { Kind: 'organization', Name: 'Chartered org', AuditId: org.AuditId, CustomFields: { charter_no: 'C-1' } }));
    expect(kept.CustomFields).toEqual({ charter_no: 'C-1' });
    expectProblem(await saveContact(org.ContactId, { Kind: 'organization', Name: 'Chartered org', AuditId: kept.AuditId, CustomFields: { charter_no: 'C-2' } }), 400, 'CustomFields.charter_no');
    const active = await ok(rest(server, 'GET', '/api/customfields?appliesTo=organization', { token: acme.staffToken }));
    expect(active.map((item: Body) => item.Key)).not.toContain('charter_no');
    const all = await ok(rest(server, 'GET', '/api/customfields?appliesTo=organization&includeRetired=true', { token: acme.staffToken }));
    expect(all.map((item: Body) => item.Key)).toContain('charter_no');
    // Its key stays taken.
    expectProblem(await defineField({ AppliesTo: 'organization', Key: 'charter_no', Label: 'Again', Kind: 'text' }), 409, 'Key');

    const { restoreCustomField: restored } = await gql(`mutation($id: Int!, $a: Int!) { restoreCustomField(customFieldId: $id, auditId: $a) { IsRetired AuditId } }`,
      { id: field.CustomFieldId, a: retired.AuditId });
    expect(restored).toEqual({ IsRetired: false, AuditId: retired.AuditId + 1 });
    const { retireCustomField: again } = await gql(`mutation($id: Int!, $a: Int!) { retireCustomField(customFieldId: $id, auditId: $a) { IsRetired AuditId } }`,
      { id: field.CustomFieldId, a: restored.AuditId });
    expect(again).toEqual({ IsRetired: true, AuditId: restored.AuditId + 1 });
    const restoredOverRest = await ok(call('POST', `/api/customfields/${field.CustomFieldId}/restore/${again.AuditId}`));
    expect(restoredOverRest).toMatchObject({ IsRetired: false, RetiredDate: null, Required: true, AuditId: again.AuditId + 1 });
    expectProblem(await call('POST', `/api/customfields/${field.CustomFieldId}/restore/${again.AuditId}`), 409, 'AuditId');
    expect((await call('POST', '/api/customfields/987654/restore/1')).status).toBe(404);
  });
});

describe('filtering lists by custom fields', () => {
  it('filters contacts by value, choice, yes/no, no value and range; the same over GraphQL', async () => {
    const tag = `f${Date.now()}`;
    const a = await ok(saveContact(0, person({ LastName: `${tag}A`, CustomFields: { shoe_size: 38, joined_on: '2019-05-01', interests: ['Golf', 'Chess'], volunteer: true, region: 'North' } })));
    const b = await ok(saveContact(0, person({ LastName: `${tag}B`, CustomFields: { shoe_size: 44.5, joined_on: '2022-01-15', interests: ['Chess'], volunteer: false } })));
    const c = await ok(saveContact(0, person({ LastName: `${tag}C`, CustomFields: { region: 'South' } })));
    const ids = async (filters: Body[]) => {
      const page = await ok(listContacts({ Filter: tag, CustomFieldFilters: filters }));
      return page.Results.map((contact: Body) => contact.ContactId).sort((x: number, y: number) => x - y);
    };
    expect(await ids([{ Key: 'interests', Value: 'chess' }])).toEqual([a.ContactId, b.ContactId]);
    expect(await ids([{ Key: 'interests', Value: 'Golf; Chess' }])).toEqual([a.ContactId]);
    expect(await ids([{ Key: 'volunteer', Value: 'No' }])).toEqual([b.ContactId]);
    expect(await ids([{ Key: 'region', Value: 'south' }])).toEqual([c.ContactId]);
    expect(await ids([{ Key: 'region', Value: '' }])).toEqual([b.ContactId]);
    expect(await ids([{ Key: 'shoe_size', From: '40' }])).toEqual([b.ContactId]);
    expect(await ids([{ Key: 'shoe_size', From: '30', To: '44.5' }])).toEqual([a.ContactId, b.ContactId]);
    expect(await ids([{ Key: 'joined_on', To: '2020-12-31' }, { Key: 'volunteer', Value: 'Yes' }])).toEqual([a.ContactId]);
    expectProblem(await listContacts({ CustomFieldFilters: [{ Key: 'nope', Value: 'x' }] }), 400, 'CustomFieldFilters[0].Key');
    expectProblem(await listContacts({ CustomFieldFilters: [{ Key: 'region', From: 'a' }] }), 400, 'CustomFieldFilters[0].From');
    expectProblem(await listContacts({ CustomFieldFilters: [{ Key: 'shoe_size', Value: 'big' }] }), 400, 'CustomFieldFilters[0].Value');
    expectProblem(await listContacts({ CustomFieldFilters: [{ Key: 'shoe_size' }] }), 400, 'CustomFieldFilters[0]');

    const { contacts } = await gql(`query($f: ContactListFilterInput) { contacts(filter: $f) { TotalRecordAvailable Results { ContactId CustomFields } } }`,
      { f: { Filter: tag, CustomFieldFilters: [{ Key: 'shoe_size', From: '40', To: '50' }] } });
    expect(contacts).toEqual({ TotalRecordAvailable: '1', Results: [{ ContactId: b.ContactId, CustomFields: b.CustomFields }] });
  });

  it('filters memberships (REST and GraphQL), through the GIN index for a value', async () => {
    const type = await ok(call('POST', '/api/membershiptypes/0', { Name: 'Filtered type', DurationMonths: 12 }));
    const em = server.orm.em.fork();
    const member = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Filter', lastName: 'Member' });
    await em.flush();
    const enrol = (referrer: string) => ok(call('POST', '/api/memberships/0', { ContactId: member.id, MembershipTypeId: type.MembershipTypeId, CustomFields: { referrer } }));
    const first = await enrol('Zed');
    await enrol('Yan');
    const page = await ok(call('POST', '/api/memberships/items', { MembershipTypeId: type.MembershipTypeId, CustomFieldFilters: [{ Key: 'referrer', Value: 'Zed' }] }));
    expect(page.Results.map((term: Body) => term.MembershipId)).toEqual([first.MembershipId]);
    const { memberships } = await gql(`query($f: MembershipFilterInput) { memberships(filter: $f) { TotalRecordAvailable } }`,
      { f: { MembershipTypeId: type.MembershipTypeId, CustomFieldFilters: [{ Key: 'referrer', Value: 'Yan' }] } });
    expect(memberships.TotalRecordAvailable).toBe('1');

    // The containment test can use the GIN index (the planner is told not to scan, to show that it may).
    const planner = server.orm.em.fork();
    await planner.begin();
    await planner.execute('set local enable_seqscan = off');
    const plan = await planner.execute(`explain select id from membership where custom_fields @> '{"referrer": "Zed"}'::jsonb`);
    await planner.rollback();
    expect(JSON.stringify(plan)).toContain('membership_custom_fields_index');
  });
});

describe('custom fields in public directory listings', () => {
  it('shows public values to anyone, members values to a signed-in member, never staff-only or retired ones; the listing type narrows them', async () => {
    const contact = await ok(saveContact(0, person({ CustomFields: { nickname: 'Listed', shoe_size: 40, joined_on: '2018-03-03', region: 'North', volunteer: true } })));
    const typeResponse = await call('POST', '/api/directory/directorylistingtypes', { Name: 'With custom fields' });
    const typeId = (await ok(typeResponse)).DirectoryListingTypeId;
    const directory = await ok(call('POST', '/api/directory/directories/0', { Name: 'Custom directory', IsPublic: true, DirectoryListingTypeId: typeId }));
    const { saveDirectoryListing: listing } = await gql(`mutation($d: Int!, $c: Int!, $input: DirectoryListingInput!) {
      saveDirectoryListing(directoryId: $d, contactId: $c, input: $input) { DirectoryContactId } }`, { d: directory.DirectoryId, c: contact.ContactId, input: { DirectoryListingTypeId: typeId } });
    const detail = (headers: Record<string, string>, token?: string) =>
      rest(server, 'GET', `/api/directory/directories/${directory.DirectoryId}/public/details/${listing.DirectoryContactId}`, { headers, token });
    // Documented as str: the values travel as JSON text.
    const listed = (body: Body) => JSON.parse(body.CustomFields as string) as Body[];
    const keys = (response: HttpResult) => listed(response.body).map((field) => field.Key);

    const anonymous = await ok(detail({ 'x-tenant-key': acme.key }));
    expect(listed(anonymous)).toEqual([
      { Key: 'nickname', Label: 'Nickname', Kind: 'text', Value: 'Listed' },
      { Key: 'region', Label: 'Region', Kind: 'choice', Value: 'North' },
      { Key: 'volunteer', Label: 'Volunteer', Kind: 'yes_no', Value: true },
    ]);
    // A signed-in member also sees the members' fields; the staff-only date never shows.
    expect(keys(await detail({}, acme.memberToken))).toEqual(['nickname', 'shoe_size', 'region', 'volunteer']);
    expect(keys(await detail({}, acme.staffToken))).toEqual(['nickname', 'shoe_size', 'region', 'volunteer']);

    const type = await ok(call('GET', `/api/directory/directorylistingtypes/${typeId}`));
    const narrowed = await ok(call('POST', '/api/directory/directorylistingtypes', { ...type, ShowCustomFields: 'region, shoe_size' }));
    expect(keys(await detail({ 'x-tenant-key': acme.key }))).toEqual(['region']);
    await ok(call('POST', '/api/directory/directorylistingtypes', { ...narrowed, ShowCustomFields: 'false' }));
    expect((await ok(detail({ 'x-tenant-key': acme.key }))).CustomFields).toBeNull();
    // Over GraphQL, anonymous (the tenant by header).
    const response = await rest(server, 'POST', '/graphql', {
      headers: { 'x-tenant-key': acme.key },
      body: { query: `query($d: Int!, $id: Int!) { publicDirectoryListing(directoryId: $d, id: $id) { CustomFields } }`, variables: { d: directory.DirectoryId, id: listing.DirectoryContactId } },
    });
    expect(response.body.data.publicDirectoryListing.CustomFields).toBeNull();
  });
});

describe('tenant isolation', () => {
  it('another tenant neither reads, changes nor retires the fields, nor filters by them, and its values are checked against its own fields', async () => {
    const field = kinds.text;
    expect((await call('GET', `/api/customfields/${field.CustomFieldId}`, undefined, other.staffToken)).status).toBe(404);
    expect((await defineField({ ...field, Label: 'Taken over' }, field.CustomFieldId, other.staffToken)).status).toBe(404);
    expect((await call('POST', `/api/customfields/${field.CustomFieldId}/retire/${field.AuditId}`, undefined, other.staffToken)).status).toBe(404);
    const theirs = await ok(rest(server, 'GET', '/api/customfields?includeRetired=true', { token: other.staffToken }));
    expect(theirs.map((item: Body) => item.CustomFieldId)).not.toContain(field.CustomFieldId);
    // `shoe_size` is acme's only.
    expectProblem(await saveContact(0, person({ CustomFields: { shoe_size: 1 } }), other.staffToken), 400, 'CustomFields.shoe_size');
    expectProblem(await listContacts({ CustomFieldFilters: [{ Key: 'shoe_size', From: '1' }] }, other.staffToken), 400, 'CustomFieldFilters[0].Key');
    // Its own `nickname` works, and finds none of acme's contacts.
    await ok(saveContact(0, person({ CustomFields: { nickname: 'Ace' } }), other.staffToken));
    const found = await ok(listContacts({ CustomFieldFilters: [{ Key: 'nickname', Value: 'Ace' }] }, other.staffToken));
    expect(found.TotalRecordAvailable).toBe('1');
    expect((await call('GET', `/api/customfields/${field.CustomFieldId}`)).body.Label).toBe('Nickname');
  });
});

describe('a key defined twice at once', () => {
  const race = useRaceServer('custom-fields-race');

  it('of concurrent creates of one key exactly one succeeds; the others are 409 naming Key', async () => {
    const attempts = Array.from({ length: 12 }, (_, index) => () => rest(race.server, 'POST', '/api/customfields/0', {
      token: race.tenant.staffToken, body: { AppliesTo: 'person', Key: 'raced', Label: `Raced ${index}`, Kind: 'text' },
    }));
    await expectExactlyOneSucceeds(attempts, [409]);
    const fields = await ok(rest(race.server, 'GET', '/api/customfields?appliesTo=person', { token: race.tenant.staffToken }));
    expect(fields.filter((field: Body) => field.Key === 'raced')).toHaveLength(1);
  });

  it('a choice removed while contacts are saved with it: never a stored value outside the choices', async () => {
    const token = race.tenant.staffToken;
    const field = await ok(rest(race.server, 'POST', '/api/customfields/0', { token, body: { AppliesTo: 'person', Key: 'shade', Label: 'Shade', Kind: 'choice', Choices: ['Red', 'Blue'] } }));
    const saveRed = (index: number) => rest(race.server, 'POST', '/api/contacts/0', { token, body: { Kind: 'person', FirstName: `Shade${index}`, LastName: 'Racer', CustomFields: { shade: 'Red' } } });
    const removal = rest(race.server, 'POST', `/api/customfields/${field.CustomFieldId}`, { token, body: { ...field, Choices: ['Blue'] } });
    const [removed, ...saves] = await Promise.all([removal, ...Array.from({ length: 10 }, (_, index) => saveRed(index))]);
    expect([200, 409]).toContain(removed.status);
    for (const save of saves) expect([200, 400]).toContain(save.status);
    const [held] = await race.server.orm.em.fork().getConnection().execute<{ count: number }[]>(
      `select count(*)::int as count from contact where tenant_id = ? and custom_fields @> '{"shade": "Red"}'`, [race.tenant.id]);
    // Every save answered 200 stored its value; and the choice went only if no contact held it.
    expect(held.count).toBe(saves.filter((save) => save.status === 200).length);
    expect(removed.status === 409 || held.count === 0).toBe(true);
  });
});
