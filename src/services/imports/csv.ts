import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { BadInput } from '../../core/errors.js';

/*
 * Reading an import's CSV as a stream: a byte-order mark is dropped, the delimiter (`,` or `;`)
 * is read off the header line, quoted fields may hold delimiters, quotes and line breaks, lines
 * may end in CRLF, blank lines are skipped and rows may be shorter or longer than the header.
 * Memory holds one record at a time (a record over MAX_RECORD_BYTES — an unclosed quote — is a
 * 400, not a file held whole).
 */

/** The longest record read (an unclosed quote would otherwise read to the end of the file). */
const MAX_RECORD_BYTES = 1024 * 1024;
/** Bytes looked at to find the header line's delimiter. */
const HEAD_BYTES = 64 * 1024;

export type CsvDelimiter = ',' | ';';

/** The delimiter of the header line: whichever of `,` and `;` occurs more often outside quotes (`,` on a tie). */
export function detectDelimiter(head: string): CsvDelimiter {
  let quoted = false;
  let commas = 0;
  let semicolons = 0;
  for (const char of head) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ',') commas++;
    else if (!quoted && char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** The records of a CSV arriving in `chunks`, with its delimiter (detected unless given). */
export async function openCsv(chunks: AsyncIterable<Buffer>, delimiter?: CsvDelimiter): Promise<{ delimiter: CsvDelimiter; records: AsyncGenerator<string[]> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let done = false;
  while (!delimiter && headBytes < HEAD_BYTES && !head.some((piece) => piece.includes(10))) {
    const next = await iterator.next();
    if (next.done) { done = true; break; }
    head.push(next.value);
    headBytes += next.value.length;
  }
  const found = delimiter ?? detectDelimiter(Buffer.concat(head).toString('utf8'));
  async function* bytes(): AsyncGenerator<Buffer> {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { delimiter: found, records: records(bytes(), found) };
}

async function* records(bytes: AsyncIterable<Buffer>, delimiter: CsvDelimiter): AsyncGenerator<string[]> {
  const parser = Readable.from(bytes).pipe(parse({
    bom: true, delimiter, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES,
  }));
  try {
    for await (const record of parser) yield record as string[];
  } catch (error) {
    throw BadInput.field('file', `is not a readable CSV: ${(error as Error).message.slice(0, 300)}`);
  } finally {
    parser.destroy();
  }
}
