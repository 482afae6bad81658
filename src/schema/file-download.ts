import { Field, ObjectType } from 'type-graphql';

/**
 * A file an operation answers (a documented HttpResponseMessage download): GraphQL clients get
 * its bytes as base64; a route row marked `download` sends them as the HTTP response itself, with
 * Content-Type and Content-Disposition.
 */
@ObjectType({ description: 'A file to download: its name, media type and bytes (base64). REST answers the bytes themselves.' })
export class FileDownload {
  @Field(() => String) FileName!: string;
  @Field(() => String) ContentType!: string;
  @Field(() => String, { description: 'The bytes, base64-encoded.' }) Content!: string;
}

/** A FileDownload of text (UTF-8). */
export function textDownload(fileName: string, contentType: string, text: string): FileDownload {
  return { FileName: fileName, ContentType: contentType, Content: Buffer.from(text, 'utf8').toString('base64') };
}

/** Requests whose FileDownload the REST gateway sends as the response body itself (see `piecewiseDownload`). */
const answeredAsBody = new WeakSet<object>();
/** The pieces of such a request's FileDownload, still to be sent. */
const pendingBodies = new WeakMap<object, AsyncIterable<Buffer>>();

/** Marks the request of `ctx` as one whose FileDownload becomes the response body (a REST download row). */
export function answerDownloadAsBody(ctx: object): void {
  answeredAsBody.add(ctx);
}

/** The pieces of the FileDownload `ctx` answered piece by piece, handed over once; undefined when it was answered whole. */
export function takeDownloadBody(ctx: object): AsyncIterable<Buffer> | undefined {
  const pieces = pendingBodies.get(ctx);
  pendingBodies.delete(ctx);
  return pieces;
}

/**
 * A FileDownload made piece by piece as it is read (an export of many rows): a REST download row
 * sends the pieces as they come, so neither side holds the file whole; GraphQL, whose answer is
 * one JSON document, gets it whole as base64.
 */
export async function piecewiseDownload(ctx: object, fileName: string, contentType: string, pieces: AsyncIterable<Buffer>): Promise<FileDownload> {
  if (answeredAsBody.has(ctx)) {
    pendingBodies.set(ctx, pieces);
    return { FileName: fileName, ContentType: contentType, Content: '' };
  }
  const whole: Buffer[] = [];
  for await (const piece of pieces) whole.push(piece);
  return { FileName: fileName, ContentType: contentType, Content: Buffer.concat(whole).toString('base64') };
}
