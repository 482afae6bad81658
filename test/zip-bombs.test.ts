import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { docxParts, small, zeros, zipOf } from '../bench/zip-archives.js';
import { Contact } from '../src/entities/index.js';
import { wordDocument } from '../src/services/document-templates/document-generation.js';
import { createTestTenant, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

// Archives that inflate (ZIP bombs) at the document template upload and again at generation
// (core/external/zip-archive.ts). How fast and in how little memory they are refused: bench/zip-bomb.ts.
let server: TestServer;
let acme: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'zipbombs');
});
afterAll(() => server.close());

const UPLOAD = 'mutation($name: String!, $content: String!) { uploadDocumentGenerationTemplateFile(fileName: $name, contentBase64: $content) { FileId } }';
const upload = (bytes: Buffer) => graphql(server, UPLOAD, { name: 'bomb.docx', content: bytes.toString('base64') }, acme.staffToken);

let bomb: Buffer;
beforeAll(async () => {
  bomb = zipOf([...docxParts(), await zeros('word/document.xml', 500)]);
});

describe('archives that inflate', () => {
  it('refuses a 500 KB DOCX that inflates to 500 MB at upload with a 413, from its central directory', async () => {
    expect(bomb.length).toBeLessThan(600 * 1024);
    const response = await upload(bomb);
    expect(response.status).toBe(413);
    expect(response.body.errors?.[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect(response.body.errors?.[0].message).toMatch(/inflates to more than/);
  });

  it('refuses an archive whose central directory understates what an entry inflates to (400, naming the field)', async () => {
    const lying = zipOf([...docxParts(), await zeros('word/document.xml', 64)], (entry) => Math.min(entry.inflatedSize, 1000));
    const response = await upload(lying);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ field: 'contentBase64' }] });
    expect(response.body.errors?.[0].message).toMatch(/does not inflate to the 1000 bytes its directory declares/);
  });

  it('refuses an archive of more entries than ZIP_MAX_ENTRIES and one compressed more than ZIP_MAX_COMPRESSION_RATIO', async () => {
    const many = zipOf([...docxParts(), small('word/document.xml', '<w:document/>'), ...Array.from({ length: 1000 }, (_, index) => small(`word/media/${index}.txt`, 'x'))]);
    const crowded = await upload(many);
    expect(crowded.status).toBe(413);
    expect(crowded.body.errors?.[0].message).toMatch(/more than 1000 entries/);

    // 8 MiB of zeros is within the 32 MiB total but compressed about 1000 to 1.
    const dense = await upload(zipOf([...docxParts(), await zeros('word/document.xml', 8)]));
    expect(dense.status).toBe(413);
    expect(dense.body.errors?.[0].message).toMatch(/compressed more than 100 to 1/);
  });

  it('checks the template again when generating from it (a file stored before the limits, or under higher ones)', async () => {
    const uploaded = await upload(await wordDocument(['Dear {Contact.FirstName}']));
    expect(uploaded.body.errors).toBeUndefined();
    const fileId = Number(uploaded.body.data.uploadDocumentGenerationTemplateFile.FileId);
    const saved = await rest(server, 'POST', '/api/documentgenerationtemplates/0', {
      token: acme.staffToken, body: { Name: 'Bomb', DocumentGenerationTypeId: 'contactletter', FileId: String(fileId) },
    });
    expect(saved.status).toBe(200);
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Ada', lastName: 'Bomb' });
    await em.flush();
    const replaced = await em.getConnection().execute<{ id: number }[]>(
      'UPDATE file_content SET bytes = ? WHERE id = (SELECT content_id FROM stored_file WHERE id = ?) RETURNING id', [bomb, fileId]);
    expect(replaced).toHaveLength(1);

    const generated = await graphql(server, 'mutation($t: Int!, $r: Int!) { generateDocument(documentGenerationTemplateId: $t, recordId: $r) { FileName } }',
      { t: saved.body.DocumentGenerationTemplateId, r: contact.id }, acme.staffToken);
    expect(generated.status).toBe(413);
    expect(generated.body.errors?.[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('never inflates a compressed request body: a gzip-encoded body is not read as JSON', async () => {
    const body = gzipSync(JSON.stringify({ query: '{ __typename }', padding: 'x'.repeat(10 * 1024 * 1024) }));
    const response = await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
    expect([400, 415]).toContain(response.status);
  });
});
