import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact } from '../src/entities/index.js';
import { createTestTenant, graphql, rest, startTestServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

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
