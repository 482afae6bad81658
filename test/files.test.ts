import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { loadConfig } from '../src/core/config.js';
import { purgeUnusedFiles } from '../src/services/files/files.js';
import { createTestTenant, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';
import { stoppedBetween } from './support/races.js';

function png(width: number, height: number, background = '#3366ff'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
}

async function upload(server: TestServer, token: string, bytes: Buffer, filename = 'picture.png') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), filename);
  const response = await fetch(`${server.baseUrl}/api/images/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: response.status, body: await response.json() as { FileId: number; Url: string } };
}

async function download(server: TestServer, token: string, path: string) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('file configuration', () => {
  it('defaults to PostgreSQL storage and a 10 MB upload limit', () => {
    expect(loadConfig({})).toMatchObject({ FILE_STORAGE: 'database', UPLOAD_MAX_BYTES: 10 * 1024 * 1024 });
    expect(loadConfig({ UPLOAD_MAX_BYTES: '2048' }).UPLOAD_MAX_BYTES).toBe(2048);
  });

  it.each([
    [{ UPLOAD_MAX_BYTES: 'lots' }, 'UPLOAD_MAX_BYTES'],
    [{ UPLOAD_MAX_BYTES: '10' }, 'UPLOAD_MAX_BYTES'],
    [{ FILE_STORAGE: 'ftp' }, 'FILE_STORAGE'],
    [{ FILE_STORAGE: 's3' }, 'S3_BUCKET'],
    [{ FILE_STORAGE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT'],
    [{ FILE_STORAGE: 's3', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'key' }, 'S3_SECRET_ACCESS_KEY'],
  ])('names the bad variable in %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(name);
  });
});

describe('unused files', () => {
  let server: TestServer;
  let tenant: TestTenant;
  beforeAll(async () => {
    server = await startTestServer();
    tenant = await createTestTenant(server, 'purge');
  });
  afterAll(() => server.close());

  it('purges uploads nothing uses once they are old, and keeps the ones images use', async () => {
    const unused = await upload(server, tenant.staffToken, await png(10, 10, '#010101'));
    const used = await upload(server, tenant.staffToken, await png(10, 10, '#020202'));
    const fresh = await upload(server, tenant.staffToken, await png(10, 10, '#030303'));
    const image = await rest(server, 'POST', '/api/images/image/0', { token: tenant.staffToken, body: { FileId: used.body.FileId } });
    expect(image.status).toBe(200);
    await server.orm.em.getConnection().execute(
      "update stored_file set created_at = now() - interval '2 days' where id in (?, ?)", [unused.body.FileId, used.body.FileId]);

    expect(await purgeUnusedFiles(server.orm, server.config, '1 day')).toBe(1);
    expect((await download(server, tenant.staffToken, unused.body.Url)).status).toBe(404);
    expect((await download(server, tenant.staffToken, used.body.Url)).status).toBe(200);
    expect((await download(server, tenant.staffToken, fresh.body.Url)).status).toBe(200);
    expect((await download(server, tenant.staffToken, image.body.Url)).status).toBe(200);
    const contents = await server.orm.em.getConnection().execute('select count(*)::int as n from file_content where tenant_id = ?', [tenant.id]);
    expect(contents).toEqual([{ n: 2 }]);
  });
});

/**
 * A stand-in for an S3-compatible object store at its HTTP boundary: path-style PutObject,
 * GetObject and DeleteObjects, refusing unsigned requests.
 */
function startS3Double() {
  const objects = new Map<string, Buffer>();
  const requests: { method: string; path: string; signed: boolean }[] = [];
  const server: Server = createServer((request, response) => void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(request.url ?? '/', 'http://s3.test');
    const path = decodeURIComponent(url.pathname);
    const signed = /^AWS4-HMAC-SHA256 Credential=test-key\//.test(request.headers.authorization ?? '');
    requests.push({ method: request.method!, path: `${path}${url.search}`, signed });
    const xml = (status: number, text: string) => {
      response.writeHead(status, { 'content-type': 'application/xml' });
      response.end(`<?xml version="1.0" encoding="UTF-8"?>${text}`);
    };
    if (!signed) return xml(403, '<Error><Code>AccessDenied</Code><Message>Unsigned</Message></Error>');
    if (request.method === 'PUT') {
      objects.set(path, body);
      response.writeHead(200, { etag: '"stored"' });
      return response.end();
    }
    if (request.method === 'GET') {
      const object = objects.get(path);
      if (!object) return xml(404, '<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>');
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': object.length });
      return response.end(object);
    }
    if (request.method === 'POST' && url.searchParams.has('delete')) {
      const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((match) => match[1]);
      for (const key of keys) objects.delete(`${path.replace(/\/$/, '')}/${key}`);
      return xml(200, `<DeleteResult>${keys.map((key) => `<Deleted><Key>${key}</Key></Deleted>`).join('')}</DeleteResult>`);
    }
    return xml(405, '<Error><Code>MethodNotAllowed</Code><Message>Not in the double</Message></Error>');
  })());
  return {
    objects,
    requests,
    async listen(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('files in an S3-compatible object store (FILE_STORAGE=s3)', () => {
  let server: TestServer;
  let tenant: TestTenant;
  const s3 = startS3Double();
  beforeAll(async () => {
    const endpoint = await s3.listen();
    server = await startTestServer({
      FILE_STORAGE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'test-key', S3_SECRET_ACCESS_KEY: 'test-secret', S3_PREFIX: 'uploads/',
    });
    tenant = await createTestTenant(server, 'objects');
  });
  afterAll(async () => {
    await server.close();
    await s3.close();
  });

  it('puts uploads and renditions in the bucket, serves them from it, and deletes them with the image', async () => {
    const bytes = await png(200, 100);
    const file = await upload(server, tenant.staffToken, bytes);
    expect(file.status).toBe(200);
    expect(s3.objects.size).toBe(1);
    const [key, stored] = [...s3.objects][0];
    expect(key).toMatch(new RegExp(`^/media/uploads/${tenant.id}/[0-9a-f]{64}-[0-9a-f-]{36}$`));
    expect(stored.equals(bytes)).toBe(true);
    const rows = await server.orm.em.getConnection().execute('select storage, bytes is null as no_bytes, storage_key from file_content where tenant_id = ?', [tenant.id]);
    expect(rows).toEqual([{ storage: 's3', no_bytes: true, storage_key: key.replace('/media/', '') }]);

    const served = await download(server, tenant.staffToken, file.body.Url);
    expect(served).toMatchObject({ status: 200, type: 'image/png' });
    expect(served.bytes.equals(bytes)).toBe(true);

    // The same bytes again: no second object.
    expect((await upload(server, tenant.staffToken, bytes, 'again.png')).status).toBe(200);
    expect(s3.objects.size).toBe(1);

    const image = await rest(server, 'POST', '/api/images/image/0', { token: tenant.staffToken, body: { FileId: file.body.FileId, CropX: 0, CropY: 0, CropWidth: '50', CropHeight: '50' } });
    expect(image.body).toMatchObject({ Width: '50', Height: '50' });
    expect(s3.objects.size).toBe(2);
    const rendition = await download(server, tenant.staffToken, image.body.Url);
    expect(await sharp(rendition.bytes).metadata()).toMatchObject({ width: 50, height: 50 });

    expect((await rest(server, 'DELETE', `/api/images/image/${image.body.ImageId}`, { token: tenant.staffToken })).status).toBe(200);
    // The rendition went; the original stays, as the second upload still carries the same bytes.
    expect(s3.objects.size).toBe(1);
    expect(s3.requests.some((request) => request.method === 'POST' && /^\/media\/?\?delete/.test(request.path))).toBe(true);
    expect(s3.requests.every((request) => request.signed)).toBe(true);
  });

  it('removes the objects a delete under an Idempotency-Key releases only once it has committed', async () => {
    const file = await upload(server, tenant.staffToken, await png(60, 40, '#336699'));
    const image = await rest(server, 'POST', '/api/images/image/0', { token: tenant.staffToken, body: { FileId: file.body.FileId, CropX: 0, CropY: 0, CropWidth: '30', CropHeight: '30' } });
    expect(image.status).toBe(200);
    const objectsBefore = s3.objects.size;
    // Stopped after the delete's rows are gone (not committed) and before its response is stored: the objects are still there.
    const { response } = await stoppedBetween(server.databaseUrl, { first: 'image', second: 'idempotency_record' },
      () => rest(server, 'DELETE', `/api/images/image/${image.body.ImageId}`, { token: tenant.staffToken, headers: { 'idempotency-key': 'delete-image-s3' } }),
      async () => { expect(s3.objects.size).toBe(objectsBefore); });
    expect(response.status).toBe(200);
    expect(s3.objects.size).toBe(objectsBefore - 2); // the original and its rendition, after the commit
  });

  it('answers 503 while the object store is unreachable, and 401 before touching it', async () => {
    const file = await upload(server, tenant.staffToken, await png(20, 20, '#999999'));
    expect((await download(server, '', file.body.Url)).status).toBe(401);
    await s3.close();
    const response = await fetch(`${server.baseUrl}${file.body.Url}`, { headers: { authorization: `Bearer ${tenant.staffToken}` } });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    const failedUpload = await upload(server, tenant.staffToken, await png(21, 21, '#888888'));
    expect(failedUpload.status).toBe(503);
  });
});
