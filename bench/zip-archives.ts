import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

/*
 * ZIP archives built by hand for the tests and benchmarks of archives that inflate
 * (core/zip-archive.ts): what a ZIP bomb is made of, including a central directory that lies.
 */

export interface Entry {
  name: string;
  compressed: Buffer;
  crc: number;
  inflatedSize: number;
}

/** A ZIP of deflated entries; `declare` may make the central directory claim other inflated sizes than the entries have. */
export function zipOf(entries: Entry[], declare: (entry: Entry) => number = (entry) => entry.inflatedSize): Buffer {
  const locals: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.crc, 14);
    local.writeUInt32LE(entry.compressed.length, 18);
    local.writeUInt32LE(declare(entry), 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(entry.crc, 16);
    central.writeUInt32LE(entry.compressed.length, 20);
    central.writeUInt32LE(declare(entry), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.compressed);
    directory.push(central, name);
    offset += local.length + name.length + entry.compressed.length;
  }
  const directorySize = directory.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directorySize, 12);
  end.writeUInt32LE(offset, 16);
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
