import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { Tenant } from '../src/entities/index.js';
import { routeCoverage } from '../src/rest/coverage.js';
import { seedImages } from '../src/services/images/images.js';
import { saveWhileDeleted } from './support/races.js';
import { createTestTenant, expectExactlyOneSucceeds, graphql, type HttpResult, rest, startTestServer, type TestServer, type TestTenant, useRaceServer } from './support/harness.js';

/** Small enough to test the limit with small files. */
const UPLOAD_MAX_BYTES = 300_000;

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;

beforeAll(async () => {
  server = await startTestServer({ UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES) });
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
});
afterAll(() => server.close());

// ----------------------------------------------------------------------------------- helpers

function png(width: number, height: number, background = '#3366ff'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
}

function jpeg(width: number, height: number, background = '#cc3300'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).jpeg().toBuffer();
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

interface UploadOptions {
  token?: string;
  filename?: string;
  type?: string;
  fields?: Record<string, string>;
  /** More file parts after the first. */
  extraFiles?: Buffer[];
  /** Leave the file part out. */
  noFile?: boolean;
}

/** A real multipart/form-data upload (FormData + Blob through fetch). */
async function upload<T = any>(path: string, bytes: Buffer, options: UploadOptions = {}): Promise<HttpResult<T>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  if (!options.noFile) form.append('file', new Blob([new Uint8Array(bytes)], { type: options.type ?? 'image/png' }), options.filename ?? 'picture.png');
  for (const extra of options.extraFiles ?? []) form.append('file2', new Blob([new Uint8Array(extra)], { type: 'image/png' }), 'second.png');
  const token = options.token === undefined ? acme.staffToken : options.token;
  const response = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: response.status, headers: response.headers, text, body: body as T };
}

/** GET of bytes. */
async function download(path: string, token: string | undefined = acme.staffToken, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

async function uploadFile(bytes: Buffer, options: UploadOptions = {}) {
  const response = await upload('/api/images/upload', bytes, options);
  expect(response.status).toBe(200);
  return response.body as { FileId: number; Name: string; MediaType: string; Size: number; Sha256: string; Width: number; Height: number; Url: string };
}

async function saveImage(imageId: number, body: Record<string, unknown>, token = acme.staffToken) {
  return rest(server, 'POST', `/api/images/image/${imageId}`, { token, body });
}

async function createImage(body: Record<string, unknown>, token = acme.staffToken) {
  const response = await saveImage(0, body, token);
  expect(response.status).toBe(200);
  return response.body as Record<string, any>;
}

async function aboutMe(token: string) {
  return (await rest(server, 'GET', '/api/login/aboutme', { token })).body;
}

async function contentRows(tenantId: number) {
  return server.orm.em.getConnection().execute<{ sha256: string; storage: string; has_bytes: boolean; storage_key: string | null }[]>(
    'select sha256, storage, bytes is not null as has_bytes, storage_key from file_content where tenant_id = ?', [tenantId]);
}

const IMAGE_FIELDS = ['ImageId', 'FileId', 'SourceType', 'SourceId', 'Url', 'CropX', 'CropY', 'CropHeight', 'CropWidth', 'Height', 'Width', 'Caption', 'ForceAspect', 'ShortDescription', 'Name'];

// ------------------------------------------------------------------------------------- tests

describe('uploads', () => {
  it('stores a PNG from a real multipart upload and serves the same bytes with caching headers', async () => {
    const bytes = await png(120, 80);
    const file = await uploadFile(bytes, { filename: 'logo.png' });
    expect(file).toEqual({
      FileId: expect.any(Number), Name: 'logo.png', MediaType: 'image/png', Size: bytes.length, Sha256: sha256(bytes),
      Width: 120, Height: 80, Url: `/api/images/file/${file.FileId}`,
    });

    const served = await download(file.Url);
    expect(served.status).toBe(200);
    expect(served.bytes.equals(bytes)).toBe(true);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-length')).toBe(String(bytes.length));
    expect(served.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(served.headers.get('cache-control')).toContain('private');
    expect(served.headers.get('content-disposition')).toBe(`inline; filename="logo.png"; filename*=UTF-8''logo.png`);
  });

  it('answers 304 for a matching If-None-Match, and the bytes otherwise', async () => {
    const file = await uploadFile(await png(30, 30, '#00ff00'));
    const first = await download(file.Url);
    const etag = first.headers.get('etag')!;
    const again = await download(file.Url, acme.staffToken, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await download(file.Url, acme.staffToken, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await download(file.Url, acme.staffToken, { 'if-none-match': '"stale"' })).status).toBe(200);
    // Paths match case-insensitively and with a trailing slash, as everywhere in the API.
    expect((await download(`/API/Images/File/${file.FileId}/`)).status).toBe(200);
    expect((await upload('/Api/Images/Upload/', await png(3, 3))).status).toBe(200);
  });

  it('accepts JPEG, GIF and WebP, deciding the type from the bytes', async () => {
    const cases: [Buffer, string][] = [
      [await jpeg(40, 30), 'image/jpeg'],
      [await sharp({ create: { width: 20, height: 10, channels: 3, background: '#123456' } }).gif().toBuffer(), 'image/gif'],
      [await sharp({ create: { width: 20, height: 10, channels: 3, background: '#123456' } }).webp().toBuffer(), 'image/webp'],
    ];
    for (const [bytes, mediaType] of cases) {
      const file = await uploadFile(bytes, { filename: 'upload.bin', type: 'application/octet-stream' });
      expect(file.MediaType).toBe(mediaType);
      expect((await download(file.Url)).headers.get('content-type')).toBe(mediaType);
    }
  });

  it('stores a real PNG named .exe as the PNG it is, under a .png name', async () => {
    const bytes = await png(16, 16);
    const file = await uploadFile(bytes, { filename: 'setup.exe', type: 'application/x-msdownload' });
    expect(file).toMatchObject({ MediaType: 'image/png', Name: 'setup.png' });
    const served = await download(file.Url);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-disposition')).toContain('filename="setup.png"');
  });

  it('keeps path parts and odd characters out of stored names', async () => {
    const file = await uploadFile(await png(8, 8), { filename: '..\\..\\évil<name>|.PNG' });
    expect(file.Name).toBe('évilname.png');
    const served = await download(file.Url);
    expect(served.headers.get('content-disposition')).toBe(`inline; filename="_vilname.png"; filename*=UTF-8''%C3%A9vilname.png`);
  });

  it.each([
    ['a text file named .jpg', Buffer.from('just some text, not a picture at all\n'.repeat(10)), 'photo.jpg', 'image/jpeg'],
    ['an executable named .png', Buffer.concat([Buffer.from('4d5a90000300000004000000ffff0000b800000000000000400000', 'hex'), Buffer.alloc(200, 0x41)]), 'photo.png', 'image/png'],
    ['a PNG signature in front of an executable', Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.from('MZ\x90\x00 payload '.repeat(30))]), 'photo.png', 'image/png'],
    ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'), 'logo.svg', 'image/svg+xml'],
    ['a TIFF', null, 'scan.tif', 'image/tiff'],
  ])('refuses %s with 415', async (_label, given, filename, type) => {
    const bytes = given ?? await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).tiff().toBuffer();
    const response = await upload('/api/images/upload', bytes, { filename, type });
    expect(response.status).toBe(415);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('refuses a truncated image with 415', async () => {
    const whole = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#000', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).png().toBuffer();
    const response = await upload('/api/images/upload', whole.subarray(0, Math.floor(whole.length / 2)));
    expect(response.status).toBe(415);
  });

  it('refuses a file over the size limit with 413, and takes one at the limit', async () => {
    const header = await png(1, 1);
    const oversized = Buffer.concat([header, Buffer.alloc(UPLOAD_MAX_BYTES + 1 - header.length, 7)]);
    const response = await upload('/api/images/upload', oversized);
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    // Far over the limit, the declared length alone is enough to refuse it.
    const far = await upload('/api/images/upload', Buffer.concat([header, Buffer.alloc(UPLOAD_MAX_BYTES * 3, 7)]));
    expect(far.status).toBe(413);
    // Exactly at the limit is fine (a PNG with padding after its end).
    const small = await png(4, 4);
    const atLimit = await upload('/api/images/upload', Buffer.concat([small, Buffer.alloc(UPLOAD_MAX_BYTES - small.length)]));
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.Size).toBe(UPLOAD_MAX_BYTES);
  });

  it('refuses an image of too many pixels with 413', async () => {
    // A small PNG whose header claims 10000 x 10000 pixels (a decompression bomb's shape).
    const huge = Buffer.from(await png(10, 10));
    huge.writeUInt32BE(10_000, 16);
    huge.writeUInt32BE(10_000, 20);
    huge.writeUInt32BE(crc32(huge.subarray(12, 29)), 29);
    const response = await upload('/api/images/upload', huge);
    expect(response.status).toBe(413);
    expect(response.body.detail).toContain('megapixels');
  });

  it('refuses a body that is not multipart (415), a form without a file or with two (400)', async () => {
    const json = await rest(server, 'POST', '/api/images/upload', { token: acme.staffToken, body: { file: 'x' } });
    expect(json.status).toBe(415);
    const octets = await rest(server, 'POST', '/api/images/upload', { token: acme.staffToken, body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    expect(octets.status).toBe(415);
    const empty = await upload('/api/images/upload', Buffer.alloc(0), { noFile: true, fields: { Caption: 'no file' } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('file');
    const two = await upload('/api/images/upload', await png(4, 4), { extraFiles: [await png(5, 5)] });
    expect(two.status).toBe(400);
    expect(two.body.errors[0].field).toBe('file');
    const broken = await rest(server, 'POST', '/api/images/upload', {
      token: acme.staffToken, body: '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc', headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(broken.status).toBe(400);
    const noBoundary = await rest(server, 'POST', '/api/images/upload', { token: acme.staffToken, body: 'abc', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
  });

  it('keeps identical bytes once per tenant however many files carry them', async () => {
    const tenant = await createTestTenant(server, 'dedupe');
    const bytes = await png(33, 33, '#abcdef');
    const first = await uploadFile(bytes, { token: tenant.staffToken, filename: 'a.png' });
    const second = await uploadFile(bytes, { token: tenant.staffToken, filename: 'b.png' });
    expect(second.FileId).not.toBe(first.FileId);
    expect(second.Name).toBe('b.png');
    const rows = await contentRows(tenant.id);
    expect(rows).toEqual([{ sha256: sha256(bytes), storage: 'database', has_bytes: true, storage_key: null }]);
  });
});

describe('images of a folder (upload/{foldertype}/{objectid})', () => {
  it('uploads a contact logo: real Width and Height after the usage rules, original kept, logo linked', async () => {
    const me = await aboutMe(acme.staffToken);
    const original = await jpeg(1000, 500);
    const response = await upload(`/api/images/upload/contact/${me.ContactId}`, original, {
      filename: 'portrait.jpg', type: 'image/jpeg', fields: { Caption: 'Sam at the gala', ShortDescription: 'Sam smiling' },
    });
    expect(response.status).toBe(200);
    const image = response.body;
    expect(Object.keys(image)).toEqual(expect.arrayContaining(IMAGE_FIELDS));
    expect(image).toMatchObject({
      SourceType: 'Contact', SourceId: me.ContactId, Url: `/api/images/image/${image.ImageId}`,
      Width: '400', Height: '400', Caption: 'Sam at the gala', ShortDescription: 'Sam smiling', Name: 'portrait.jpg',
      CropX: null, CropY: null, CropWidth: null, CropHeight: null, ImageUsageId: 'ContactLogo',
    });
    const rendition = await download(image.Url);
    expect(rendition.status).toBe(200);
    expect(rendition.headers.get('content-type')).toBe('image/jpeg');
    expect(await sharp(rendition.bytes).metadata()).toMatchObject({ width: 400, height: 400, format: 'jpeg' });
    const kept = await download(`/api/images/file/${image.FileId}`);
    expect(kept.bytes.equals(original)).toBe(true);

    const after = await aboutMe(acme.staffToken);
    expect(after).toMatchObject({ ContactLogoUrl: image.Url, ContactLogoShortDescription: 'Sam smiling' });

    // A new logo replaces the old one (and its files go).
    const replacement = await upload(`/api/images/upload/Contact/${me.ContactId}`, await png(300, 300), { filename: 'new.png' });
    expect(replacement.status).toBe(200);
    expect((await aboutMe(acme.staffToken)).ContactLogoUrl).toBe(replacement.body.Url);
    expect((await download(image.Url)).status).toBe(404);
    expect((await download(`/api/images/file/${image.FileId}`)).status).toBe(404);

    // Deleting the logo unlinks it.
    expect((await rest(server, 'DELETE', `/api/images/image/${replacement.body.ImageId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await aboutMe(acme.staffToken)).ContactLogoUrl).toBeNull();
  });

  it('moves an image to another record and unlinks the logo it was', async () => {
    const me = await aboutMe(acme.staffToken);
    const logo = await upload(`/api/images/upload/contact/${me.ContactId}`, await png(100, 100));
    expect((await aboutMe(acme.staffToken)).ContactLogoUrl).toBe(logo.body.Url);
    const moved = await saveImage(logo.body.ImageId, { SourceType: 'SocialFeed', SourceId: 7, ImageUsageId: 'SocialFeed' });
    expect(moved.body).toMatchObject({ SourceType: 'SocialFeed', SourceId: 7, ImageUsageId: 'SocialFeed' });
    expect((await aboutMe(acme.staffToken)).ContactLogoUrl).toBeNull();
  });

  it('takes crop fields with the upload', async () => {
    const response = await upload('/api/images/upload/socialfeed/0', await png(400, 300), {
      fields: { CropX: '10', CropY: '20', CropWidth: '200', CropHeight: '100' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ SourceType: 'SocialFeed', SourceId: 0, Width: '200', Height: '100', CropX: 10, CropY: 20, CropWidth: '200', CropHeight: '100' });
    const bad = await upload('/api/images/upload/socialfeed/0', await png(40, 30), { fields: { CropX: 'left' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('CropX');
    const files = async () => (await server.orm.em.getConnection().execute('select count(*)::int as n from stored_file'))[0].n;
    const before = await files();
    const outside = await upload('/api/images/upload/socialfeed/0', await png(40, 30), { fields: { CropX: '0', CropY: '0', CropWidth: '80', CropHeight: '10' } });
    expect(outside.status).toBe(400);
    expect(outside.body.errors[0].field).toBe('CropWidth');
    expect(await files()).toBe(before);
  });

  it('sets the tenant logo (staff only)', async () => {
    const response = await upload('/api/images/upload/tenant/0', await png(1200, 300), { filename: 'brand.png' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ SourceType: 'Tenant', SourceId: acme.id, Width: '600', Height: '150' });
    expect((await aboutMe(acme.memberToken)).TenantLogoUrl).toBe(response.body.Url);
    const member = await upload('/api/images/upload/tenant/0', await png(10, 10), { token: acme.memberToken });
    expect(member.status).toBe(403);
    expect((await upload(`/api/images/upload/tenant/${other.id}`, await png(10, 10))).status).toBe(404);
  });

  it('lets a member set their own contact logo but not another contact\'s', async () => {
    const member = await aboutMe(acme.memberToken);
    const staff = await aboutMe(acme.staffToken);
    const own = await upload(`/api/images/upload/contact/${member.ContactId}`, await png(50, 50), { token: acme.memberToken });
    expect(own.status).toBe(200);
    expect((await aboutMe(acme.memberToken)).ContactLogoUrl).toBe(own.body.Url);
    const theirs = await upload(`/api/images/upload/contact/${staff.ContactId}`, await png(50, 50), { token: acme.memberToken });
    expect(theirs.status).toBe(403);
    const store = await upload('/api/images/upload/storeitem/5', await png(50, 50), { token: acme.memberToken });
    expect(store.status).toBe(403);
  });

  it('answers 404 for an unknown folder, an object id that is no record id, another tenant\'s contact', async () => {
    expect((await upload('/api/images/upload/spaceship/1', await png(5, 5))).status).toBe(404);
    expect((await upload('/api/images/upload/contact/abc', await png(5, 5))).status).toBe(404);
    expect((await upload('/api/images/upload/contact/999999', await png(5, 5))).status).toBe(404);
    const theirs = await aboutMe(other.staffToken);
    expect((await upload(`/api/images/upload/contact/${theirs.ContactId}`, await png(5, 5))).status).toBe(404);
  });
});

describe('directory gallery images (folder DirectoryGallery)', () => {
  const contactOf = async (token: string) => (await aboutMe(token)).ContactId as number;
  /** A public directory of `tenant` listing the given contacts: their DirectoryContactIds. */
  async function listings(tenant: TestTenant, contactIds: number[]): Promise<{ directoryId: number; listingIds: number[] }> {
    const directory = await rest(server, 'POST', '/api/directory/directories/0', { token: tenant.staffToken, body: { Name: `Gallery ${tenant.key}`, IsPublic: true } });
    const listingIds: number[] = [];
    for (const contactId of contactIds) {
      const listed = await graphql(server, 'mutation($d: Int!, $c: Int!) { saveDirectoryListing(directoryId: $d, contactId: $c, input: {}) { DirectoryContactId } }',
        { d: directory.body.DirectoryId, c: contactId }, tenant.staffToken);
      listingIds.push(listed.body.data.saveDirectoryListing.DirectoryContactId);
    }
    return { directoryId: directory.body.DirectoryId, listingIds };
  }
  const gallery = (listingId: number, token = acme.staffToken) => rest(server, 'GET', `/api/directory/listings/${listingId}/gallery`, { token });

  it('takes uploads to a listing the caller may edit, in order, with captions, shown in the public listing', async () => {
    const { directoryId, listingIds: [own, staffs] } = await listings(acme, [await contactOf(acme.memberToken), await contactOf(acme.staffToken)]);
    const first = await upload(`/api/images/upload/directorygallery/${own}`, await png(800, 600), { token: acme.memberToken, fields: { Caption: 'Front desk' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ SourceType: 'DirectoryGallery', SourceId: own, Caption: 'Front desk' });
    const second = await upload(`/api/images/upload/DirectoryGallery/${own}`, await png(400, 300), { fields: { Caption: 'Workshop', ShortDescription: 'Tools on a wall' } });
    expect(second.status).toBe(200);

    // Only staff and the listed contact may add to a listing's gallery; a listing must exist in the caller's tenant.
    expect((await upload(`/api/images/upload/directorygallery/${staffs}`, await png(10, 10), { token: acme.memberToken })).status).toBe(403);
    expect((await upload('/api/images/upload/directorygallery/987654', await png(10, 10))).status).toBe(404);
    const { listingIds: [theirs] } = await listings(other, [await contactOf(other.staffToken)]);
    expect((await upload(`/api/images/upload/directorygallery/${theirs}`, await png(10, 10))).status).toBe(404);
    expect((await saveImage(second.body.ImageId, { SourceType: 'DirectoryGallery', SourceId: theirs })).status).toBe(404);
    expect((await gallery(own, acme.memberToken)).status).toBe(200);
    expect((await gallery(staffs, acme.memberToken)).status).toBe(403);
    expect((await gallery(theirs)).status).toBe(404);

    const entry = (image: { ImageId: number; Url: string }, caption: string | null, shortDescription: string | null, width: number, height: number, sortOrder: number) => ({
      ImageId: image.ImageId, Url: image.Url, Caption: caption, ShortDescription: shortDescription, Width: width, Height: height, SortOrder: sortOrder,
    });
    expect((await gallery(own)).body).toEqual([entry(first.body, 'Front desk', null, 800, 600, 1), entry(second.body, 'Workshop', 'Tools on a wall', 400, 300, 2)]);

    // Reordered (every image once, else 400), recaptioned, and read by the public listing in that order.
    const wrong = await rest(server, 'POST', `/api/directory/listings/${own}/gallery/order`, { token: acme.memberToken, body: [second.body.ImageId] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].field).toBe('body'); // the REST body is the list itself (GraphQL names its argument, imageIds)
    const reordered = await rest(server, 'POST', `/api/directory/listings/${own}/gallery/order`, { token: acme.memberToken, body: [second.body.ImageId, first.body.ImageId] });
    expect(reordered.body.map((image: { ImageId: number; SortOrder: number }) => [image.ImageId, image.SortOrder])).toEqual([[second.body.ImageId, 1], [first.body.ImageId, 2]]);
    expect((await saveImage(first.body.ImageId, { Caption: 'Reception' })).status).toBe(200);
    const shown = await rest(server, 'GET', `/api/directory/directories/${directoryId}/public/details/${own}`, { headers: { 'x-tenant-key': acme.key } });
    expect(shown.body.GalleryImages).toEqual([second.body.Url, first.body.Url]);
    expect(shown.body.GalleryImageDetails).toEqual([entry(second.body, 'Workshop', 'Tools on a wall', 400, 300, 1), entry(first.body, 'Reception', null, 800, 600, 2)]);

    // The same over GraphQL; a deleted image leaves the gallery.
    const viaGraphql = await graphql(server, 'mutation($l: Int!, $ids: [Int!]!) { reorderDirectoryGalleryImages(directoryContactId: $l, imageIds: $ids) { ImageId } }',
      { l: own, ids: [first.body.ImageId, second.body.ImageId] }, acme.staffToken);
    expect(viaGraphql.body.data.reorderDirectoryGalleryImages).toEqual([{ ImageId: first.body.ImageId }, { ImageId: second.body.ImageId }]);
    expect((await rest(server, 'DELETE', `/api/images/image/${first.body.ImageId}`, { token: acme.staffToken })).status).toBe(200);
    const read = await graphql(server, 'query($l: Int!) { directoryGalleryImages(directoryContactId: $l) { ImageId Caption SortOrder } }', { l: own }, acme.memberToken);
    expect(read.body.data.directoryGalleryImages).toEqual([{ ImageId: second.body.ImageId, Caption: 'Workshop', SortOrder: 1 }]);
  });
});

describe('saving images (POST /api/images/image/{imageid})', () => {
  it('creates an image from an uploaded file, crops it, and re-crops it, keeping the original', async () => {
    const original = await png(640, 480);
    const file = await uploadFile(original, { filename: 'scene.png' });
    const created = await createImage({ FileId: file.FileId, Caption: 'Harbour', ShortDescription: 'Boats', CropX: 100, CropY: 50, CropWidth: '320', CropHeight: '240' });
    expect(created).toMatchObject({
      ImageId: expect.any(Number), FileId: file.FileId, Width: '320', Height: '240', CropX: 100, CropY: 50, CropWidth: '320', CropHeight: '240',
      Caption: 'Harbour', ShortDescription: 'Boats', Name: 'scene.png', SourceType: null, SourceId: null, ImageUsageId: null,
    });
    const first = await download(created.Url);
    expect(await sharp(first.bytes).metadata()).toMatchObject({ width: 320, height: 240 });
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    expect((await download(created.Url, acme.staffToken, { 'if-none-match': etag })).status).toBe(304);

    const recropped = await saveImage(created.ImageId, { CropX: 0, CropY: 0, CropWidth: '100.4', CropHeight: '150' });
    expect(recropped.status).toBe(200);
    expect(recropped.body).toMatchObject({ ImageId: created.ImageId, Width: '100', Height: '150', CropWidth: '100', Caption: 'Harbour' });
    const second = await download(created.Url, acme.staffToken, { 'if-none-match': etag });
    expect(second.status).toBe(200);
    expect(await sharp(second.bytes).metadata()).toMatchObject({ width: 100, height: 150 });
    expect(second.headers.get('etag')).not.toBe(etag);
    expect((await download(file.Url)).bytes.equals(original)).toBe(true);

    // Clearing the crop serves the original again.
    const uncropped = await saveImage(created.ImageId, { CropWidth: null, CropHeight: null, Caption: null });
    expect(uncropped.body).toMatchObject({ Width: '640', Height: '480', CropWidth: null, Caption: null, ShortDescription: 'Boats' });
    expect((await download(created.Url)).bytes.equals(original)).toBe(true);
  });

  it('follows the usage rules: trims to the aspect ratio and resizes to fit', async () => {
    const file = await uploadFile(await png(1000, 600));
    const store = await createImage({ FileId: file.FileId, ImageUsageId: 'StoreItem' });
    expect(store).toMatchObject({ Width: '600', Height: '600', ImageUsageId: 'StoreItem' });
    const thumbnail = await createImage({ FileId: file.FileId, ImageUsageId: 'storeitem.thumbnail', CropX: 0, CropY: 0, CropWidth: '500', CropHeight: '250' });
    expect(thumbnail).toMatchObject({ Width: '250', Height: '250', ImageUsageId: 'StoreItem.Thumbnail' });
    const free = await createImage({ FileId: file.FileId, ImageUsageId: 'StoreItem', ForceAspect: 'false' });
    expect(free).toMatchObject({ Width: '1000', Height: '600', ForceAspect: 'false' });
    const wide = await createImage({ FileId: file.FileId, ForceAspect: '16:9' });
    expect(wide).toMatchObject({ Width: '1000', Height: '563' });
    const gallery = await createImage({ FileId: file.FileId, SourceType: 'DirectoryGallery', SourceId: 0 });
    expect(gallery).toMatchObject({ SourceType: 'DirectoryGallery', SourceId: 0, ImageUsageId: 'DirectoryGallery', Width: '1000', Height: '600' });
    const served = await download(store.Url);
    expect(await sharp(served.bytes).metadata()).toMatchObject({ width: 600, height: 600 });
  });

  it('shows the image as displayed: EXIF orientation applied', async () => {
    const turned = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#0a0' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const file = await uploadFile(turned, { filename: 'phone.jpg', type: 'image/jpeg' });
    expect(file).toMatchObject({ Width: 200, Height: 300 });
    const image = await createImage({ FileId: file.FileId, CropX: 0, CropY: 0, CropWidth: '200', CropHeight: '250' });
    expect(image).toMatchObject({ Width: '200', Height: '250' });
    const served = await sharp((await download(image.Url)).bytes).metadata();
    expect(served).toMatchObject({ width: 200, height: 250 });
  });

  it('crops every frame of an animated GIF', async () => {
    const frames = await Promise.all(['#f00', '#0f0', '#00f'].map((background) => sharp({ create: { width: 60, height: 40, channels: 4, background } }).png().toBuffer()));
    const animated = await sharp(frames, { join: { animated: true } }).gif({ loop: 0 }).toBuffer();
    const file = await uploadFile(animated, { filename: 'blink.gif', type: 'image/gif' });
    expect(file).toMatchObject({ MediaType: 'image/gif', Width: 60, Height: 40 });
    const image = await createImage({ FileId: file.FileId, CropX: 10, CropY: 10, CropWidth: '30', CropHeight: '20' });
    expect(image).toMatchObject({ Width: '30', Height: '20' });
    const served = await sharp((await download(image.Url)).bytes, { animated: true }).metadata();
    expect(served).toMatchObject({ format: 'gif', width: 30, pages: 3, pageHeight: 20 });
  });

  it('updates only what is given; the path id wins over the body id; unknown id 404', async () => {
    const file = await uploadFile(await png(50, 50));
    const image = await createImage({ FileId: file.FileId, Caption: 'One', ShortDescription: 'Alt' });
    const other = await createImage({ FileId: file.FileId, Caption: 'Other' });
    const updated = await saveImage(image.ImageId, { ImageId: other.ImageId, Caption: 'Two' });
    expect(updated.body).toMatchObject({ ImageId: image.ImageId, Caption: 'Two', ShortDescription: 'Alt' });
    expect((await saveImage(999999, { Caption: 'x' })).status).toBe(404);
  });

  it('replaces the original with another FileId and drops the old files when unused', async () => {
    const first = await uploadFile(await png(80, 60, '#111111'));
    const second = await uploadFile(await png(60, 80, '#222222'));
    const image = await createImage({ FileId: first.FileId, CropX: 0, CropY: 0, CropWidth: '40', CropHeight: '40' });
    const updated = await saveImage(image.ImageId, { FileId: second.FileId, CropWidth: null, CropHeight: null });
    expect(updated.body).toMatchObject({ FileId: second.FileId, Width: '60', Height: '80' });
    expect((await download(first.Url)).status).toBe(404);
    expect((await download(second.Url)).status).toBe(200);
  });

  it.each([
    ['no FileId on create', 0, {}, 'FileId'],
    ['a CropX that is not an integer', 0, { FileId: 1, CropX: 1.5 }, 'CropX'],
    ['a CropWidth that is not a number', 0, { FileId: 1, CropWidth: 'wide', CropHeight: '10' }, 'CropWidth'],
    ['a negative CropY', 0, { FileId: 1, CropY: -1 }, 'CropY'],
    ['an over-long Caption', 0, { FileId: 1, Caption: 'x'.repeat(1001) }, 'Caption'],
    ['an over-long ShortDescription', 0, { FileId: 1, ShortDescription: 'x'.repeat(501) }, 'ShortDescription'],
    ['a ForceAspect that is no ratio', 0, { FileId: 1, ForceAspect: 'square' }, 'ForceAspect'],
  ])('rejects %s with a 400 naming the field', async (_label, imageId, body, field) => {
    const response = await saveImage(imageId, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('rejects crops outside the image, unknown usages and source types with a 400 naming the field', async () => {
    const file = await uploadFile(await png(100, 50));
    const cases: [Record<string, unknown>, string][] = [
      [{ CropX: 0, CropY: 0, CropWidth: '150', CropHeight: '10' }, 'CropWidth'],
      [{ CropX: 0, CropY: 45, CropWidth: '10', CropHeight: '10' }, 'CropHeight'],
      [{ CropX: 100, CropY: 0, CropWidth: '10', CropHeight: '10' }, 'CropX'],
      [{ CropWidth: '10' }, 'CropHeight'],
      [{ ImageUsageId: 'Billboard' }, 'ImageUsageId'],
      [{ SourceType: 'Spaceship', SourceId: 1 }, 'SourceType'],
    ];
    for (const [body, field] of cases) {
      const response = await saveImage(0, { FileId: file.FileId, ...body });
      expect({ field, status: response.status }).toEqual({ field, status: 400 });
      expect(response.body.errors[0].field).toBe(field);
    }
  });

  // The route table's operations (save, delete) are in the generated malformed-input sweep (test/sweeps.test.ts); the downloads are raw routes.
  it('rejects a path id that is not an integer (400) on the image downloads', async () => {
    for (const path of ['/api/images/image/abc', '/api/images/file/1.5', '/api/images/file/99999999999']) {
      const response = await rest(server, 'GET', path, { token: acme.staffToken });
      expect(response.status).toBe(400);
      expect(response.body.errors[0].field).toMatch(/^(imageid|fileid)$/);
    }
  });

  it('answers an id of any length on its own route: 400 problem+json naming it, never another route\'s 405', async () => {
    for (const id of ['1'.repeat(101), 'x'.repeat(3000), '9'.repeat(12)]) {
      for (const kind of ['image', 'file']) {
        const response = await rest(server, 'GET', `/api/images/${kind}/${id}`, { token: acme.staffToken });
        expect({ status: response.status, type: response.headers.get('content-type'), field: response.body?.errors?.[0]?.field })
          .toEqual({ status: 400, type: expect.stringContaining('application/problem+json'), field: `${kind}id` });
      }
    }
  });
});

describe('deleting images', () => {
  it('never acknowledges a save that a delete overtook (images carry no version)', async () => {
    const file = await uploadFile(await png(20, 20, '#654321'));
    const image = await createImage({ FileId: file.FileId });
    const save = await saveWhileDeleted(server, 'image', image.ImageId, () => saveImage(image.ImageId, { ShortDescription: 'too late' }));
    expect(save.status).toBe(404);
  });

  it('removes the image and its bytes, but keeps a file another image still uses', async () => {
    const file = await uploadFile(await png(64, 64, '#445566'));
    const first = await createImage({ FileId: file.FileId, CropX: 0, CropY: 0, CropWidth: '32', CropHeight: '32' });
    const second = await createImage({ FileId: file.FileId });
    const deleted = await rest(server, 'DELETE', `/api/images/image/${first.ImageId}`, { token: acme.staffToken });
    expect(deleted.status).toBe(200);
    expect((await download(first.Url)).status).toBe(404);
    expect((await download(file.Url)).status).toBe(200);
    expect((await rest(server, 'DELETE', `/api/images/image/${first.ImageId}`, { token: acme.staffToken })).status).toBe(404);

    expect((await rest(server, 'DELETE', `/api/images/image/${second.ImageId}`, { token: acme.staffToken })).status).toBe(200);
    expect((await download(file.Url)).status).toBe(404);
    const bytesLeft = await server.orm.em.getConnection().execute('select 1 from file_content c join stored_file f on f.content_id = c.id where f.id = ?', [file.FileId]);
    expect(bytesLeft).toEqual([]);
  });

  it('lets staff and the uploader change an image, other members not (403)', async () => {
    const tenant = await createTestTenant(server, 'roles');
    const em = server.orm.em.fork();
    const { createLogin, createSession, findTenant } = await import('../src/services/login/identity.js');
    const secondMember = await createLogin(em, await findTenant(em, 'roles'), { email: 'second@roles.example', role: 'member' });
    const secondToken = (await createSession(em, secondMember, 1)).token;

    const file = await uploadFile(await png(20, 20), { token: tenant.memberToken });
    const image = await createImage({ FileId: file.FileId, Caption: 'mine' }, tenant.memberToken);
    expect((await saveImage(image.ImageId, { Caption: 'theirs' }, secondToken)).status).toBe(403);
    expect((await rest(server, 'DELETE', `/api/images/image/${image.ImageId}`, { token: secondToken })).status).toBe(403);
    expect((await saveImage(image.ImageId, { Caption: 'still mine' }, tenant.memberToken)).status).toBe(200);
    expect((await saveImage(image.ImageId, { Caption: 'staff edit' }, tenant.staffToken)).status).toBe(200);
    const gql = await graphql(server, 'mutation($id: Int!) { deleteImage(imageId: $id) }', { id: image.ImageId }, secondToken);
    expect(gql.status).toBe(403);
    expect(gql.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    expect((await rest(server, 'DELETE', `/api/images/image/${image.ImageId}`, { token: tenant.memberToken })).status).toBe(200);
  });
});

describe('image usages (GET /api/images/usage/{imageusageid})', () => {
  it('answers the rules of each usage the other areas need', async () => {
    const expected: Record<string, unknown> = {
      ContactLogo: { MaxWidth: '400', MaxHeight: '400', AspectRatio: '1:1' },
      TenantLogo: { MaxWidth: '600', MaxHeight: '200', AspectRatio: null },
      StoreItem: { MaxWidth: '1200', MaxHeight: '1200', AspectRatio: '1:1' },
      DirectoryGallery: { MaxWidth: '1600', MaxHeight: '1200', AspectRatio: null },
      SocialFeed: { MaxWidth: '1600', MaxHeight: '1600', AspectRatio: null },
    };
    for (const [usage, rules] of Object.entries(expected)) {
      const response = await rest(server, 'GET', `/api/images/usage/${usage}`, { token: acme.memberToken });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(rules);
    }
    const thumbnail = await rest(server, 'GET', '/api/images/usage/storeitem?secondary=Thumbnail', { token: acme.memberToken });
    expect(thumbnail.body).toEqual({ MaxWidth: '300', MaxHeight: '300', AspectRatio: '1:1' });
    expect((await rest(server, 'GET', '/api/images/usage/Billboard', { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'GET', '/api/images/usage/StoreItem?secondary=Poster', { token: acme.memberToken })).status).toBe(404);
  });
});

describe('images over GraphQL', () => {
  it('reads images, files and usages, saves and deletes', async () => {
    const file = await uploadFile(await png(90, 60), { filename: 'gql.png' });
    const fileQuery = await graphql(server, 'query($id: Int!) { imageFile(fileId: $id) { FileId Name MediaType Size Sha256 Width Height Url } }', { id: file.FileId }, acme.staffToken);
    expect(fileQuery.body.data.imageFile).toEqual(file);

    const saved = await graphql(server, `mutation($input: ImageAddEditInput!) { saveImage(imageId: 0, input: $input) { ImageId FileId Width Height CropWidth Caption Url } }`,
      { input: { FileId: file.FileId, CropX: 0, CropY: 0, CropWidth: '45', CropHeight: '30', Caption: 'From GraphQL' } }, acme.staffToken);
    expect(saved.status).toBe(200);
    const image = saved.body.data.saveImage;
    expect(image).toMatchObject({ FileId: file.FileId, Width: '45', Height: '30', CropWidth: '45', Caption: 'From GraphQL' });

    const read = await graphql(server, `query($id: Int!) { image(imageId: $id) { ImageId Name Width ShortDescription } imageUsage(imageUsageId: "ContactLogo") { MaxWidth AspectRatio } }`, { id: image.ImageId }, acme.staffToken);
    expect(read.body.data).toEqual({ image: { ImageId: image.ImageId, Name: 'gql.png', Width: '45', ShortDescription: null }, imageUsage: { MaxWidth: '400', AspectRatio: '1:1' } });

    const updated = await graphql(server, `mutation($id: Int!) { saveImage(imageId: $id, input: { ShortDescription: "alt text" }) { ShortDescription Caption } }`, { id: image.ImageId }, acme.staffToken);
    expect(updated.body.data.saveImage).toEqual({ ShortDescription: 'alt text', Caption: 'From GraphQL' });

    const bad = await graphql(server, `mutation { saveImage(imageId: 0, input: { FileId: ${file.FileId}, Caption: "${'x'.repeat(1001)}" }) { ImageId } }`, {}, acme.staffToken);
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('Caption');

    const deleted = await graphql(server, 'mutation($id: Int!) { deleteImage(imageId: $id) }', { id: image.ImageId }, acme.staffToken);
    expect(deleted.body.data.deleteImage).toBe(image.ImageId);
    const gone = await graphql(server, 'query($id: Int!) { image(imageId: $id) { ImageId } }', { id: image.ImageId }, acme.staffToken);
    expect(gone.status).toBe(404);
    expect(gone.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('image access', () => {
  // 401 without a credential and 403 for a member on every operation: test/sweeps.test.ts.
  it("keeps another tenant's files and images invisible and untouchable (404)", async () => {
    const file = await uploadFile(await png(40, 40, '#ff00ff'));
    const image = await createImage({ FileId: file.FileId, Caption: 'Acme only' });
    expect((await download(file.Url, other.staffToken)).status).toBe(404);
    expect((await download(image.Url, other.staffToken)).status).toBe(404);
    expect((await saveImage(image.ImageId, { Caption: 'Hijacked' }, other.staffToken)).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/images/image/${image.ImageId}`, { token: other.staffToken })).status).toBe(404);
    const borrowed = await saveImage(0, { FileId: file.FileId }, other.staffToken);
    expect(borrowed.status).toBe(404);
    for (const query of ['query($id: Int!) { image(imageId: $id) { Caption } }']) {
      expect((await graphql(server, query, { id: image.ImageId }, other.staffToken)).status).toBe(404);
    }
    expect((await graphql(server, 'query($id: Int!) { imageFile(fileId: $id) { Name } }', { id: file.FileId }, other.staffToken)).status).toBe(404);
    // Identical bytes in another tenant are that tenant's own file.
    const theirs = await uploadFile(await png(40, 40, '#ff00ff'), { token: other.staffToken });
    expect(theirs.Sha256).toBe(file.Sha256);
    expect((await rest(server, 'DELETE', `/api/images/image/${(await createImage({ FileId: theirs.FileId }, other.staffToken)).ImageId}`, { token: other.staffToken })).status).toBe(200);
    expect((await download(file.Url)).status).toBe(200);
    expect((await rest(server, 'GET', `/api/images/image/${image.ImageId}`, { token: acme.staffToken })).status).toBe(200);
  });
});

describe('image races against the real database', () => {
  const race = useRaceServer('race-acme');

  const call = (method: string, path: string, body?: unknown) => rest(race.server, method, path, { token: race.tenant.staffToken, body });
  async function uploaded(bytes: Buffer, path = '/api/images/upload') {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'race.png');
    const response = await fetch(`${race.server.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${race.tenant.staffToken}` }, body: form });
    expect(response.status).toBe(200);
    return await response.json() as Record<string, any>;
  }
  const filesLeft = async () => (await race.server.orm.em.getConnection().execute<{ n: number }[]>('select count(*)::int as n from stored_file where tenant_id = ?', [race.tenant.id]))[0].n;

  it('lets exactly one of 20 concurrent deletes of one image succeed, and releases its bytes once', async () => {
    const file = await uploaded(await png(24, 24, '#123456'));
    const image = (await call('POST', '/api/images/image/0', { FileId: file.FileId, CropX: 0, CropY: 0, CropWidth: '12', CropHeight: '12' })).body;
    await expectExactlyOneSucceeds(Array.from({ length: 20 }, () => () => call('DELETE', `/api/images/image/${image.ImageId}`)), [404]);
    expect((await call('GET', `/api/images/file/${file.FileId}`)).status).toBe(404);
    expect(await filesLeft()).toBe(0);
  });

  it('never acknowledges a save of an image a racing delete removed, and leaves no file behind either way', async () => {
    for (let round = 0; round < 10; round++) {
      const file = await uploaded(await png(60, 40, `#10${String(round).padStart(2, '0')}ff`));
      const image = (await call('POST', '/api/images/image/0', { FileId: file.FileId, Caption: `Raced ${round}` })).body;
      const [save, remove] = await Promise.all([
        // Odd rounds re-crop (a new rendition is made before the save commits), even ones only change the caption.
        call('POST', `/api/images/image/${image.ImageId}`, { Caption: `Raced ${round} saved`, ...(round % 2 ? { CropX: 0, CropY: 0, CropWidth: '30', CropHeight: '20' } : {}) }),
        // Staggered a little, so that some saves commit first and some deletes do.
        new Promise((resolve) => setTimeout(resolve, (round % 5) * 5)).then(() => call('DELETE', `/api/images/image/${image.ImageId}`)),
      ]);
      // Images carry no version, so the delete always wins in the end; a save it overtook is told (404).
      expect(remove.status).toBe(200);
      expect([200, 404]).toContain(save.status);
      expect((await call('GET', `/api/images/image/${image.ImageId}`)).status).toBe(404);
      // The original, the rendition the save made and the one it replaced: all released.
      expect({ round, files: await filesLeft() }).toEqual({ round, files: 0 });
    }
  });

  it('keeps one logo per contact when two are uploaded at once', async () => {
    const me = (await call('GET', '/api/login/aboutme')).body;
    const [first, second] = await Promise.all([png(40, 40, '#aa0000'), png(40, 40, '#00aa00')].map(async (bytes) => uploaded(await bytes, `/api/images/upload/contact/${me.ContactId}`)));
    const logos = await race.server.orm.em.getConnection().execute<{ id: number }[]>(
      "select id from image where tenant_id = ? and source_type = 'Contact' and source_id = ? and usage = 'ContactLogo'", [race.tenant.id, me.ContactId]);
    expect(logos).toHaveLength(1);
    expect([first.ImageId, second.ImageId]).toContain(logos[0].id);
    expect((await call('GET', '/api/login/aboutme')).body.ContactLogoUrl).toBe(`/api/images/image/${logos[0].id}`);
    // The replaced logo's files went with it: every file left belongs to the kept logo.
    const unreferenced = await race.server.orm.em.getConnection().execute(
      'select id from stored_file f where tenant_id = ? and not exists (select 1 from image i where i.file_id = f.id or i.rendition_id = f.id)', [race.tenant.id]);
    expect(unreferenced).toEqual([]);
  });
});

describe('demo images', () => {
  it('stores a small PNG through the file service and makes it an image the tenant can read', async () => {
    const tenant = await createTestTenant(server, 'demo-images');
    const em = server.orm.em.fork();
    await seedImages(em, await em.findOneOrFail(Tenant, { id: tenant.id }), 'Mark-');
    const [row] = await server.orm.em.getConnection().execute<{ id: number }[]>('select id from image where tenant_id = ?', [tenant.id]);
    const image = await rest(server, 'GET', `/api/images/image/${row.id}`, { token: tenant.staffToken });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    const json = await graphql(server, 'query($id: Int!) { image(imageId: $id) { Caption Width Height } }', { id: row.id }, tenant.staffToken);
    expect(json.body.data.image).toEqual({ Caption: 'Mark-Annual gala banner', Width: '48', Height: '16' });
  });
});

describe('route coverage', () => {
  it('routes all seven Images operations', () => {
    expect(routeCoverage().byArea.get('Images')).toEqual({ routed: 7, total: 7 });
  });
});
