import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import PizZip from 'pizzip';
import { ReferenceKind } from '@mikro-orm/core';
import { Contact, Membership, MembershipType } from '../src/entities/index.js';
import { saveWhileDeleted } from './support/races.js';
import {
  createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type TestServer, type TestTenant,
} from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the area's own rules.
const BASE = '/api/documentgenerationtemplates';
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'doctemplates');
});
afterAll(() => server.close());

/** A small Word document built here with pizzip: one paragraph per text. */
function docx(paragraphs: string[]): Buffer {
  const zip = new PizZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
    + paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`).join('') + '</w:body></w:document>');
  return zip.generate({ type: 'nodebuffer' });
}

const UPLOAD = 'mutation($name: String!, $content: String!) { uploadDocumentGenerationTemplateFile(fileName: $name, contentBase64: $content) { FileId Name MediaType Size } }';

async function upload(bytes: Buffer, name = 'letter.docx', token = acme.staffToken): Promise<string> {
  const response = await graphql(server, UPLOAD, { name, content: bytes.toString('base64') }, token);
  expect(response.body.errors).toBeUndefined();
  return response.body.data.uploadDocumentGenerationTemplateFile.FileId as string;
}

const save = (id: number | string, body: Record<string, unknown>) => rest(server, 'POST', `${BASE}/${id}`, { token: acme.staffToken, body });
async function create(name: string, typeId: string, paragraphs = ['Hello {Contact.FirstName}']): Promise<{ id: number; fileId: string }> {
  const fileId = await upload(docx(paragraphs));
  const response = await save(0, { Name: name, DocumentGenerationTypeId: typeId, FileId: fileId });
  expect(response.status).toBe(200);
  return { id: response.body.DocumentGenerationTemplateId as number, fileId };
}
const get = (path: string) => rest(server, 'GET', `${BASE}${path}`, { token: acme.staffToken });

async function fileRows(fileId: string): Promise<number> {
  const [row] = await server.orm.em.fork().execute<{ n: string }[]>('SELECT count(*)::text AS n FROM stored_file WHERE id = ?', [Number(fileId)]);
  return Number(row.n);
}

describe('document generation templates over REST', () => {
  it('creates, reads, lists, updates, copies and deletes a template at the documented paths', async () => {
    const { id, fileId } = await create('Welcome letter', 'contactletter');
    const read = await get(`/${id}`);
    expect(read.body).toEqual({ DocumentGenerationTemplateId: id, AuditId: 1, DocumentGenerationTypeId: 'contactletter', Name: 'Welcome letter', FileId: fileId, FileExists: true });

    const listed = await get('');
    expect(listed.body.Instruction).toContain('{Contact.FirstName}');
    expect(listed.body.Items).toContainEqual({
      DocumentGenerationTemplateId: id, DocumentGenerationTypeId: 'contactletter', AuditId: 1, TemplateType: 'Contact letter', Name: 'Welcome letter',
      AllowEdit: true, FileId: fileId, FileName: 'letter.docx', FileEditUrl: `${BASE}/download/${id}/${fileId}`, Actions: ['Edit', 'Delete'],
    });

    const renamed = await save(id, { Name: 'Welcome letter 2', DocumentGenerationTypeId: 'ContactLetter', AuditId: 1 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ Name: 'Welcome letter 2', AuditId: 2, FileId: fileId });
    expect((await save(id, { Name: 'Stale', DocumentGenerationTypeId: 'contactletter', AuditId: 1 })).status).toBe(409);

    const copy = await rest(server, 'POST', `${BASE}/copy/${id}`, { token: acme.staffToken });
    expect(copy.status).toBe(200);
    expect(copy.body).toMatchObject({ Name: 'Copy of Welcome letter 2', DocumentGenerationTypeId: 'contactletter', FileId: fileId, AuditId: 1 });

    // The copy shares the file: deleting the original keeps it, deleting the copy too releases it.
    expect((await rest(server, 'DELETE', `${BASE}/${id}/1`, { token: acme.staffToken })).status).toBe(409);
    expect((await rest(server, 'DELETE', `${BASE}/${id}/2`, { token: acme.staffToken })).status).toBe(200);
    expect((await get(`/${id}`)).status).toBe(404);
    expect(await fileRows(fileId)).toBe(1);
    expect((await rest(server, 'DELETE', `${BASE}/${copy.body.DocumentGenerationTemplateId}/1`, { token: acme.staffToken })).status).toBe(200);
    expect(await fileRows(fileId)).toBe(0);
  });

  it('replacing the file releases the old one', async () => {
    const { id, fileId } = await create('Invoice', 'invoices');
    const next = await upload(docx(['Invoice for {Contact.Name}']), 'invoice.docx');
    const saved = await save(id, { Name: 'Invoice', DocumentGenerationTypeId: 'invoices', FileId: next, AuditId: 1 });
    expect(saved.body).toMatchObject({ FileId: next, FileName: 'invoice.docx' });
    expect(await fileRows(fileId)).toBe(0);
  });

  it('downloads the template file with Content-Type and Content-Disposition', async () => {
    const bytes = docx(['Certificate for {Contact.FirstName}']);
    const fileId = await upload(bytes, 'certificate ä.docx');
    const { body } = await save(0, { Name: 'Certificate', DocumentGenerationTypeId: 'certificate', FileId: fileId });
    const response = await fetch(`${server.baseUrl}${BASE}/download/${body.DocumentGenerationTemplateId}/${fileId}`, { headers: { authorization: `Bearer ${acme.staffToken}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="certificate _.docx"; filename*=UTF-8''certificate%20%C3%A4.docx`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    // Another file id, an unknown template, a non-integer: 404, 404, 400.
    const other = await upload(docx(['x']));
    expect((await get(`/download/${body.DocumentGenerationTemplateId}/${other}`)).status).toBe(404);
    expect((await get(`/download/987654/${fileId}`)).status).toBe(404);
    expect((await get(`/download/abc/${fileId}`)).status).toBe(400);
    expect((await rest(server, 'GET', `${BASE}/download/${body.DocumentGenerationTemplateId}/${fileId}`, { token: acme.memberToken })).status).toBe(403);
  });

  it('answers the 17 fixed-type lookups and the generic one (literal routes win)', async () => {
    const badge = await create('Badge', 'attendeebadge');
    const component = await create('Component', 'certificatecomponent');
    const lookup = await get('/lookup/attendeebadge');
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual([{ Id: badge.id, Name: 'Badge', ExtraData: null, CssColor: null, IsSelected: false, IsDeleted: false, Order: 0 }]);
    expect((await get('/lookup/AttendeeBadge')).body).toEqual(lookup.body);
    expect((await get('/lookup/certificate/component')).body.map((choice: { Id: number }) => choice.Id)).toEqual([component.id]);
    expect((await get('/lookup/certificatecomponent')).body.map((choice: { Id: number }) => choice.Id)).toEqual([component.id]);
    for (const path of ['attendeebadge', 'brokeragestatement', 'brokerstatementbyoffice', 'certificate', 'certificate/component', 'contactletter', 'coverletter',
      'credits', 'defaultstatement', 'invoices', 'member', 'membershiptypeactivecensus', 'payments', 'refunds', 'sales', 'salesproposal', 'singleattendeebadge']) {
      expect({ path, status: (await get(`/lookup/${path}`)).status }).toEqual({ path, status: 200 });
    }
    expect((await get('/lookup/nosuchtype')).status).toBe(404);
  });

  it('refuses bad input naming the field', async () => {
    const fileId = await upload(docx(['x']));
    const problems = async (body: Record<string, unknown>, id: number | string = 0) => {
      const response = await save(id, body);
      return { status: response.status, fields: (response.body?.errors ?? []).map((error: { field: string }) => error.field) };
    };
    expect(await problems({ Name: 'x', DocumentGenerationTypeId: 'nope', FileId: fileId })).toEqual({ status: 400, fields: ['DocumentGenerationTypeId'] });
    expect(await problems({ Name: ' ', DocumentGenerationTypeId: 'invoices', FileId: fileId })).toEqual({ status: 400, fields: ['Name'] });
    expect(await problems({ Name: 'x', DocumentGenerationTypeId: 'invoices' })).toEqual({ status: 400, fields: ['FileId'] });
    expect(await problems({ Name: 'x', DocumentGenerationTypeId: 'invoices', FileId: '99999999' })).toEqual({ status: 400, fields: ['FileId'] });
    expect(await problems({ Name: 'x', DocumentGenerationTypeId: 'invoices', FileId: 'a\u0000' })).toEqual({ status: 400, fields: ['FileId'] });
    expect((await problems({ Name: 'x', DocumentGenerationTypeId: 'invoices', FileId: fileId }, 'abc')).status).toBe(404);
    expect((await problems({ Name: 'x', DocumentGenerationTypeId: 'invoices', FileId: fileId }, 987654)).status).toBe(404);
    // Only DOCX files are templates.
    const png = await graphql(server, UPLOAD, { name: 'x.docx', content: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64') }, acme.staffToken);
    expect(png.status).toBe(415);
    const zip = new PizZip();
    zip.file('a.txt', 'not word');
    expect((await graphql(server, UPLOAD, { name: 'x.docx', content: zip.generate({ type: 'nodebuffer' }).toString('base64') }, acme.staffToken)).status).toBe(415);
    expect((await graphql(server, UPLOAD, { name: 'x.docx', content: '***' }, acme.staffToken)).body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('deletes once under 10 concurrent deletes, and a save overtaken by a delete is not acknowledged', async () => {
    const { id } = await create('Raced', 'credits');
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => rest(server, 'DELETE', `${BASE}/${id}/1`, { token: acme.staffToken })));
    const other = await create('Raced again', 'credits');
    const response = await saveWhileDeleted(server, 'document_generation_template', other.id, () => save(other.id, { Name: 'Renamed', DocumentGenerationTypeId: 'credits', AuditId: 1 }));
    expect([404, 409]).toContain(response.status);
  });

  it('lists with a fixed number of statements whatever the page size', async () => {
    for (let index = 0; index < 6; index++) await create(`Paged ${index}`, 'sales');
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await get(`?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`);
      expect(response.status).toBe(200);
    }, 4);
  });
});

describe('merge fields and generation', () => {
  it('lists the merge fields of a type from the entities (REST and GraphQL)', async () => {
    const letter = await get('/availablemergefields/contactletter');
    expect(letter.status).toBe(200);
    const groups = letter.body.AvailableFieldsGroup as { GroupName: string; Fields: { Name: string; Type: string }[] }[];
    expect(groups.map((group) => group.GroupName)).toEqual(['Contact', 'Tenant']);
    const contactFields = groups[0].Fields.map((field) => field.Name);
    // Every scalar column of the contact (read from the ORM here too), less bookkeeping (the version, the lists' search keys) and structured (JSON) ones.
    const meta = server.orm.getMetadata().get(Contact);
    const bookkeeping = ['auditId', 'updatedAt', 'deletedAt', 'emailSuppressedAt', 'emailSuppressionReason', 'searchText', 'sortName'];
    const expected = meta.props
      .filter((prop) => prop.kind === ReferenceKind.SCALAR && !bookkeeping.includes(prop.name) && prop.runtimeType !== 'object' && !String(prop.columnTypes?.[0]).startsWith('json'))
      .map((prop) => `Contact.${prop.name.charAt(0).toUpperCase()}${prop.name.slice(1)}`);
    expect(contactFields.sort()).toEqual(expected.sort());
    expect(contactFields).toEqual(expect.arrayContaining(['Contact.FirstName', 'Contact.Email', 'Contact.Id', 'Contact.Kind']));
    expect(groups[0].Fields.find((field) => field.Name === 'Contact.CreatedAt')?.Type).toBe('datetime');
    expect(groups[0].Fields.find((field) => field.Name === 'Contact.FirstName')?.Type).toBe('string');

    const member = await graphql(server, 'query($t: String!) { documentGenerationAvailableMergeFields(documentGenerationTypeId: $t) { DocumentGenerationTypeId AvailableFieldsGroup { GroupName Fields { Name Type } } } }',
      { t: 'member' }, acme.staffToken);
    const memberGroups = member.body.data.documentGenerationAvailableMergeFields.AvailableFieldsGroup as { GroupName: string; Fields: { Name: string; Type: string }[] }[];
    expect(memberGroups.map((group) => group.GroupName)).toEqual(['Membership', 'MembershipType', 'MembershipLevel', 'Contact', 'Tenant']);
    expect(memberGroups[0].Fields).toEqual(expect.arrayContaining([{ Name: 'Membership.StartDate', Type: 'date' }, { Name: 'Membership.Status', Type: 'string' }]));
    expect((await get('/availablemergefields/nosuchtype')).status).toBe(404);
  });

  it('generates a DOCX with the merged values of a contact and of a membership', async () => {
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Ada', lastName: 'Lovelace & Co', email: 'ada@example.org' });
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Gold' });
    await em.flush();
    const membership = em.create(Membership, { tenant: acme.id, contact, membershipType: type, startDate: '2026-03-01', status: 'active' });
    await em.flush();

    const letter = await create('Letter', 'contactletter', ['Dear {Contact.FirstName} {Contact.LastName},', 'Mail: {Contact.Email} ({Tenant.Name}) {Contact.Phone}.']);
    const certificate = await create('Certificate', 'member', ['{Contact.FirstName} holds {MembershipType.Name} since {Membership.StartDate} ({Membership.Status}).']);
    const generate = (templateId: number, recordId: number) => graphql(server,
      'mutation($t: Int!, $r: Int!) { generateDocument(documentGenerationTemplateId: $t, recordId: $r) { FileName MediaType ContentBase64 } }',
      { t: templateId, r: recordId }, acme.staffToken);
    const text = (base64: string) => new PizZip(Buffer.from(base64, 'base64')).file('word/document.xml')!.asText().replace(/<[^>]+>/g, '|');

    const generated = await generate(letter.id, contact.id);
    expect(generated.body.errors).toBeUndefined();
    expect(generated.body.data.generateDocument).toMatchObject({ FileName: `Letter-${contact.id}.docx`, MediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    const letterText = text(generated.body.data.generateDocument.ContentBase64);
    expect(letterText).toContain('Dear Ada Lovelace &amp; Co,');
    expect(letterText).toContain('Mail: ada@example.org (Tenant doctemplates) .');

    const certificateText = text((await generate(certificate.id, membership.id)).body.data.generateDocument.ContentBase64);
    expect(certificateText).toContain('Ada holds Gold since 2026-03-01 (active).');

    // A record that does not exist, a broken template: 404, 400.
    expect((await generate(letter.id, 987654)).status).toBe(404);
    const broken = await create('Broken', 'coverletter', ['Dear {Contact.FirstName']);
    const refused = await generate(broken.id, contact.id);
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0].message).not.toMatch(/at |\.js/);
  });
});

describe('document generation templates over GraphQL', () => {
  it('serves every operation', async () => {
    const fileId = await upload(docx(['{Contact.FirstName}']));
    const call = (query: string, variables: Record<string, unknown> = {}) => graphql(server, query, variables, acme.staffToken);
    const saved = await call('mutation($i: DocumentGenerationTemplateAddEditInput!) { saveDocumentGenerationTemplate(documentGenerationTemplateId: "0", input: $i) { DocumentGenerationTemplateId AuditId FileId } }',
      { i: { Name: 'Over GraphQL', DocumentGenerationTypeId: 'refunds', FileId: fileId } });
    const id = saved.body.data.saveDocumentGenerationTemplate.DocumentGenerationTemplateId as number;
    expect((await call('query($id: Int!) { documentGenerationTemplate(documentGenerationTemplateId: $id) { Name FileExists } }', { id })).body.data.documentGenerationTemplate)
      .toEqual({ Name: 'Over GraphQL', FileExists: true });
    expect((await call('{ documentGenerationTemplates(options: { Filter: "over graphql" }) { Items { DocumentGenerationTemplateId } } }')).body.data.documentGenerationTemplates.Items)
      .toEqual([{ DocumentGenerationTemplateId: id }]);
    expect((await call('{ documentGenerationTemplateLookup(documentGenerationType: "refunds") { Id Name } }')).body.data.documentGenerationTemplateLookup).toEqual([{ Id: id, Name: 'Over GraphQL' }]);
    expect((await call('{ documentGenerationTypes { DocumentGenerationTypeId RecordType } }')).body.data.documentGenerationTypes).toHaveLength(17);
    const copy = await call('mutation($id: Int!) { copyDocumentGenerationTemplate(documentGenerationTemplateId: $id) { DocumentGenerationTemplateId Name } }', { id });
    expect(copy.body.data.copyDocumentGenerationTemplate.Name).toBe('Copy of Over GraphQL');
    expect((await call('mutation($id: Int!) { deleteDocumentGenerationTemplate(documentGenerationTemplateId: $id, auditId: 1) }', { id })).body.data).toEqual({ deleteDocumentGenerationTemplate: id });
    const stale = await call('mutation($id: Int!) { deleteDocumentGenerationTemplate(documentGenerationTemplateId: $id, auditId: 7) }', { id: copy.body.data.copyDocumentGenerationTemplate.DocumentGenerationTemplateId });
    expect(stale.body.errors?.[0].extensions.code).toBe('CONFLICT');
    expect((await graphql(server, '{ documentGenerationTemplates { Items { Name } } }', {}, acme.memberToken)).status).toBe(403);
  });
});
