import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { BadInput } from '../core/errors.js';

/** What raw routes (outside the route table) share when they read paths and answer. */

const INT32_MAX = 2147483647;

/** A path segment documented `int`; anything else is a 400 naming it. */
export function intParam(value: string, name: string): number {
  const number = /^-?\d{1,10}$/.test(value) ? Number(value) : NaN;
  if (!(Math.abs(number) <= INT32_MAX)) throw BadInput.field(name, 'must be an integer');
  return number;
}

export function sendJson(reply: FastifyReply, body: unknown) {
  return reply.code(200).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** `inline; filename="..."; filename*=UTF-8''...` with an ASCII fallback (RFC 6266). */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * A stored file as a download: its bytes (whole, or a stream of `file.size` bytes) with
 * Content-Type, Content-Length and an attachment Content-Disposition.
 */
export function sendAttachment(reply: FastifyReply, file: { mediaType: string; name: string; size: number }, bytes: Buffer | Readable, cacheControl: string) {
  return reply
    .code(200)
    .header('content-type', file.mediaType)
    .header('content-length', Buffer.isBuffer(bytes) ? bytes.length : file.size)
    .header('content-disposition', contentDisposition('attachment', file.name))
    .header('cache-control', cacheControl)
    .send(bytes);
}
