import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, BadInput, PayloadTooLarge } from '../core/errors.js';

/**
 * Multipart uploads for routes outside the route table (any area that takes files). Call
 * `acceptUploads` on your own Fastify scope (`server.register(async (scope) => ...)`), so the
 * REST gateway's body handling elsewhere is untouched; then `readUpload` in the handler, after
 * the caller is authenticated and allowed, so no one else's bytes are read.
 */

/** Room for the form's own headers and text fields beyond the file itself. */
const FORM_OVERHEAD = 64 * 1024;

export interface ReceivedFile {
  /** The name the client gave (untrusted: sanitize before storing). */
  filename: string | null;
  /** The media type the client claimed (untrusted: decide from the bytes). */
  declaredType: string;
  bytes: Buffer;
}

export interface ReceivedForm {
  file: ReceivedFile;
  /** The text fields of the form, by name (the last one wins). */
  fields: Record<string, string>;
}

/** Makes a scope accept multipart/form-data; other bodies are left unread for `readUpload` to refuse (415). */
export async function acceptUploads(scope: FastifyInstance): Promise<void> {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  await scope.register(multipart, { throwFileSizeLimit: true });
}

/**
 * Reads a multipart/form-data request with exactly one file part: streamed, never holding more
 * than `maxBytes` of the file (413 beyond), 415 for a body that is not multipart, 400 for a
 * malformed one, no file or more than one.
 */
export async function readUpload(request: FastifyRequest, maxBytes: number): Promise<ReceivedForm> {
  if (!request.isMultipart()) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The upload must be multipart/form-data with one file part.');
  }
  const declaredLength = Number(request.headers['content-length']);
  if (declaredLength > maxBytes + FORM_OVERHEAD) throw tooLarge(maxBytes);

  let file: ReceivedFile | null = null;
  const fields: Record<string, string> = {};
  try {
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 30, fieldSize: 16 * 1024, parts: 40, headerPairs: 100 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        file = { filename: part.filename || null, declaredType: part.mimetype, bytes };
      } else {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
      }
    }
  } catch (error) {
    throw uploadError(error, maxBytes);
  }
  if (!file) throw BadInput.field('file', 'is required: send the file as a part of the multipart/form-data body');
  if (!file.bytes.length) throw BadInput.field('file', 'is empty');
  return { file, fields };
}

/**
 * `readUpload` for files of any size (imports): the file part's bytes go to `consume` as they
 * arrive, never held whole; the same statuses (413 beyond `maxBytes`, 415, 400). Text fields
 * are not read.
 */
export async function streamUpload<T>(request: FastifyRequest, maxBytes: number, consume: (file: { filename: string | null; bytes: AsyncIterable<Buffer> }) => Promise<T>): Promise<T> {
  if (!request.isMultipart()) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The upload must be multipart/form-data with one file part.');
  }
  if (Number(request.headers['content-length']) > maxBytes + FORM_OVERHEAD) throw tooLarge(maxBytes);
  let consumed: { result: T } | null = null;
  try {
    const parts = request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 30, fieldSize: 16 * 1024, parts: 40, headerPairs: 100 } });
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      let empty = true;
      const bytes = (async function* () {
        for await (const piece of part.file as AsyncIterable<Buffer>) {
          empty &&= piece.length === 0;
          yield piece;
        }
      })();
      const result = await consume({ filename: part.filename || null, bytes });
      if (empty) throw BadInput.field('file', 'is empty');
      consumed = { result };
    }
  } catch (error) {
    throw (error as { code?: unknown } | null)?.code?.toString().startsWith('FST_') || !(error instanceof Error) || error.constructor === Error ? uploadError(error, maxBytes) : error;
  }
  if (!consumed) throw BadInput.field('file', 'is required: send the file as a part of the multipart/form-data body');
  return consumed.result;
}

function tooLarge(maxBytes: number): ApiError {
  return new PayloadTooLarge(`The file is larger than the upload limit (${maxBytes} bytes).`);
}

/** The multipart library's failures as API errors (busboy's own are plain errors about a malformed body). */
function uploadError(error: unknown, maxBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'FST_REQ_FILE_TOO_LARGE': return tooLarge(maxBytes);
    case 'FST_FILES_LIMIT': return BadInput.field('file', 'only one file may be sent per upload');
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT': return new PayloadTooLarge('The form has too many parts.');
    case 'FST_PROTO_VIOLATION': return BadInput.field('body', 'uses a reserved field name');
    default: return BadInput.field('body', 'is not a well-formed multipart/form-data body');
  }
}
