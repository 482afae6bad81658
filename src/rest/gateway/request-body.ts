import { Transform } from 'node:stream';
import { ApiError, BadInput, PayloadTooLarge } from '../../core/errors.js';
import { nestingDepth } from '../../core/requests/json-depth.js';
import { formToObject } from './form-body.js';

/** The media types a documented body may come in (listed in the OpenAPI document too). */
export const BODY_MEDIA_TYPES = ['application/json', 'text/json', 'application/x-www-form-urlencoded'] as const;

/**
 * A request body as a value: JSON (`application/json`, `application/*+json`, or `text/json` as
 * old ASP.NET clients label it; no content type at all is read as JSON too), or a form
 * (`application/x-www-form-urlencoded`, bound like ASP.NET model binding did). Anything else: 415.
 */
export function parseBody(text: string, contentType: string | undefined): { value: unknown; form: boolean } {
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (mediaType === 'application/x-www-form-urlencoded') return { value: formToObject(text), form: true };
  if (!mediaType || mediaType === 'text/json' || /^application\/([\w.+-]+\+)?json$/.test(mediaType)) return { value: parseJson(text, 'body'), form: false };
  throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `The request body must be one of ${BODY_MEDIA_TYPES.join(', ')}.`);
}

/** No documented model (nor a FilterBase in `options`) nests anywhere near this deep. */
const MAX_JSON_NESTING = 64;

export function parseJson(text: string, field: string): unknown {
  if (text.trim() === '') return null;
  if (nestingDepth(text) > MAX_JSON_NESTING) throw BadInput.field(field, `nests deeper than ${MAX_JSON_NESTING} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw BadInput.field(field, 'is not valid JSON');
  }
}

/** Refuses a body declared (Content-Length) larger than `limit` before a byte of it is read. */
export function refuseDeclaredOver(limit: number, contentLength: string | undefined): void {
  if (Number(contentLength) > limit) throw new PayloadTooLarge();
}

/** Passes a body through until more than `limit` bytes have come, then fails it with a 413. */
export function byteLimit(limit: number): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      callback(received > limit ? new PayloadTooLarge() : null, chunk);
    },
  });
}
