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
