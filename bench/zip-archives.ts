import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

/*
 * ZIP archives built by hand for the tests and benchmarks of archives that inflate
 * (core/external/zip-archive.ts): what a ZIP bomb is made of, including a central directory that lies.
 */

export interface Entry {
  name: string;
  compressed: Buffer;
  crc: number;
  inflatedSize: number;
}

/** A ZIP record of `length` bytes: each field is [offset, value, 2 or 4 bytes], little-endian. */
function record(length: number, fields: [number, number, 2 | 4][]): Buffer {
  const bytes = Buffer.alloc(length);
  for (const [offset, value, size] of fields) {
    if (size === 2) bytes.writeUInt16LE(value, offset);
    else bytes.writeUInt32LE(value, offset);
  }
  return bytes;
}

/** A ZIP of deflated entries; `declare` may make the central directory claim other inflated sizes than the entries have. */
export function zipOf(entries: Entry[], declare: (entry: Entry) => number = (entry) => entry.inflatedSize): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    // Version 2.0, method 8 (deflate), CRC-32, compressed size, declared inflated size, name length.
    const local = record(30, [[0, 0x04034b50, 4], [4, 20, 2], [8, 8, 2], [14, entry.crc, 4], [18, entry.compressed.length, 4], [22, declare(entry), 4], [26, name.length, 2]]);
    const central = record(46, [
      [0, 0x02014b50, 4], [4, 20, 2], [6, 20, 2], [10, 8, 2], [16, entry.crc, 4], [20, entry.compressed.length, 4], [24, declare(entry), 4], [28, name.length, 2], [42, offset, 4],
    ]);
    locals.push(local, name, entry.compressed);
    directory.push(central, name);
    offset += local.length + name.length + entry.compressed.length;
  }
  const directorySize = directory.reduce((sum, part) => sum + part.length, 0);
  const end = record(22, [[0, 0x06054b50, 4], [8, entries.length, 2], [10, entries.length, 2], [12, directorySize, 4], [16, offset, 4]]);
  return Buffer.concat([...locals, ...directory, end]);
}

export const small = (name: string, text: string): Entry => {
  const bytes = Buffer.from(text);
  return { name, compressed: deflateRawSync(bytes), crc: crc32(bytes), inflatedSize: bytes.length };
};

/** An entry of `megabytes` MiB of zeros, deflated as a stream (never held inflated): 500 MiB deflate to about 500 KB. */
export async function zeros(name: string, megabytes: number): Promise<Entry> {
  const chunk = Buffer.alloc(1024 * 1024);
  const deflater = createDeflateRaw({ level: 9 });
  const compressed: Buffer[] = [];
  deflater.on('data', (part: Buffer) => compressed.push(part));
  const finished = new Promise((resolve) => deflater.on('end', resolve));
  let crc = 0;
  for (let index = 0; index < megabytes; index++) {
    crc = crc32(chunk, crc);
    if (!deflater.write(chunk)) await new Promise((resolve) => deflater.once('drain', resolve));
  }
  deflater.end();
  await finished;
  return { name, compressed: Buffer.concat(compressed), crc, inflatedSize: megabytes * 1024 * 1024 };
}

/** The parts every DOCX has besides its document. */
export const docxParts = (): Entry[] => [
  small('[Content_Types].xml', '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>'
    + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'),
  small('_rels/.rels', '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" '
    + 'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'),
];
