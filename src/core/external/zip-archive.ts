import { createInflateRaw } from 'node:zlib';
import type { Config } from '../config.js';
import { BadInput, PayloadTooLarge } from '../errors.js';

/*
 * Guards against archives that inflate (ZIP bombs), for every ZIP the service opens (DOCX
 * templates, at upload and again before generating from one). A ZIP says in its central
 * directory how many entries it holds and how large each inflates, so an archive over the
 * limits is refused from that directory alone, before one byte is inflated. The directory can
 * lie, so every entry is then inflated once more as a stream that only counts its output and
 * stops one byte past what the entry declared: whatever opens the archive afterwards (pizzip)
 * inflates exactly what was counted. Memory stays a few stream buffers whatever the archive says.
 */

export interface ZipLimits {
  maxEntries: number;
  maxInflatedBytes: number;
  maxCompressionRatio: number;
}

export function zipLimits(config: Pick<Config, 'ZIP_MAX_ENTRIES' | 'ZIP_MAX_INFLATED_BYTES' | 'ZIP_MAX_COMPRESSION_RATIO'>): ZipLimits {
  return { maxEntries: config.ZIP_MAX_ENTRIES, maxInflatedBytes: config.ZIP_MAX_INFLATED_BYTES, maxCompressionRatio: config.ZIP_MAX_COMPRESSION_RATIO };
}

/** Entries smaller than this inflated are not held to the compression ratio: a short run of spaces legitimately compresses that well. */
const RATIO_EXEMPT_BYTES = 1024 * 1024;

const END_OF_CENTRAL_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
/** Sizes and counts of this value mean "in the ZIP64 record": such an archive is over every limit we set. */
const ZIP64_MARKER = 0xffffffff;
const STORED = 0;
const DEFLATED = 8;

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  inflatedSize: number;
  localHeaderOffset: number;
}

class Malformed extends Error {}

/**
 * Refuses (413) a ZIP with more entries, more inflated bytes or a higher compression ratio than
 * `limits` allow, and (400, naming `field`) one that cannot be read or whose entries inflate to
 * other sizes than its directory declares. Answers nothing: the bytes may then be opened.
 */
export async function checkZipArchive(bytes: Buffer, limits: ZipLimits, field: string): Promise<void> {
  let entries: ZipEntry[];
  try {
    entries = centralDirectory(bytes, limits);
  } catch (error) {
    if (error instanceof Malformed) throw BadInput.field(field, `is not a readable ZIP archive (${error.message})`);
    throw error;
  }
  let declaredTotal = 0;
  for (const entry of entries) {
    declaredTotal += entry.inflatedSize;
    if (declaredTotal > limits.maxInflatedBytes) throw new PayloadTooLarge(`The archive inflates to more than ${limits.maxInflatedBytes} bytes.`);
    if (entry.inflatedSize > RATIO_EXEMPT_BYTES && entry.inflatedSize > entry.compressedSize * limits.maxCompressionRatio) {
      throw new PayloadTooLarge(`The archive's entry ${JSON.stringify(entry.name)} is compressed more than ${limits.maxCompressionRatio} to 1.`);
    }
  }
  for (const entry of entries) {
    const inflated = await inflatedSize(compressedData(bytes, entry, field), entry);
    if (inflated !== entry.inflatedSize) {
      throw BadInput.field(field, `the archive's entry ${JSON.stringify(entry.name)} does not inflate to the ${entry.inflatedSize} bytes its directory declares`);
    }
  }
}

/**
 * The entries of the central directory, read as pizzip reads them (the last end record; entries
 * while their signature follows), but strictly: the directory must end where the end record
 * starts and hold the count it declares, so both read the same entries. More than
 * `limits.maxEntries` is a 413 before any further entry is read.
 */
function centralDirectory(bytes: Buffer, limits: ZipLimits): ZipEntry[] {
  const end = bytes.lastIndexOf(END_OF_CENTRAL_DIRECTORY);
  if (end < 0 || end + 22 > bytes.length) throw new Malformed('it has no end of central directory');
  const count = bytes.readUInt16LE(end + 10);
  const size = bytes.readUInt32LE(end + 12);
  const offset = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || size === ZIP64_MARKER || offset === ZIP64_MARKER) throw new PayloadTooLarge('ZIP64 archives are not accepted.');
  if (count > limits.maxEntries) throw new PayloadTooLarge(`The archive holds more than ${limits.maxEntries} entries.`);
  if (offset + size !== end) throw new Malformed('its central directory is not where its end record says');
  const entries: ZipEntry[] = [];
  let position = offset;
  while (position < end) {
    if (entries.length === limits.maxEntries) throw new PayloadTooLarge(`The archive holds more than ${limits.maxEntries} entries.`);
    if (position + 46 > end || bytes.readUInt32LE(position) !== CENTRAL_DIRECTORY_ENTRY) throw new Malformed('a central directory entry is damaged');
    const flags = bytes.readUInt16LE(position + 8);
    const method = bytes.readUInt16LE(position + 10);
    const compressedSize = bytes.readUInt32LE(position + 20);
    const inflatedSize = bytes.readUInt32LE(position + 24);
    const nameLength = bytes.readUInt16LE(position + 28);
    const extraLength = bytes.readUInt16LE(position + 30);
    const commentLength = bytes.readUInt16LE(position + 32);
    const localHeaderOffset = bytes.readUInt32LE(position + 42);
    const name = bytes.toString('utf8', position + 46, Math.min(end, position + 46 + nameLength));
    if (compressedSize === ZIP64_MARKER || inflatedSize === ZIP64_MARKER || localHeaderOffset === ZIP64_MARKER) throw new PayloadTooLarge('ZIP64 archives are not accepted.');
    if (flags & 1) throw new Malformed(`the entry ${JSON.stringify(name)} is encrypted`);
    if (method !== STORED && method !== DEFLATED) throw new Malformed(`the entry ${JSON.stringify(name)} uses compression method ${method}`);
    if (method === STORED && compressedSize !== inflatedSize) throw new Malformed(`the stored entry ${JSON.stringify(name)} declares two sizes`);
    entries.push({ name, method, compressedSize, inflatedSize, localHeaderOffset });
    position += 46 + nameLength + extraLength + commentLength;
  }
  if (position !== end) throw new Malformed('its last central directory entry runs into its end record');
  if (entries.length !== count) throw new Malformed(`its directory holds ${entries.length} entries, not the ${count} its end record declares`);
  return entries;
}

/** The entry's compressed bytes (a view, not a copy), found through its local header. */
function compressedData(bytes: Buffer, entry: ZipEntry, field: string): Buffer {
  const header = entry.localHeaderOffset;
  if (header + 30 > bytes.length || bytes.readUInt32LE(header) !== LOCAL_FILE_HEADER) {
    throw BadInput.field(field, `is not a readable ZIP archive (the entry ${JSON.stringify(entry.name)} has no local header)`);
  }
  const start = header + 30 + bytes.readUInt16LE(header + 26) + bytes.readUInt16LE(header + 28);
  if (start + entry.compressedSize > bytes.length) throw BadInput.field(field, `is not a readable ZIP archive (the entry ${JSON.stringify(entry.name)} is cut off)`);
  return bytes.subarray(start, start + entry.compressedSize);
}

/**
 * How many bytes the entry inflates to, counted as a stream and given up one byte past its
 * declared size (so a lying entry costs at most that); a broken stream counts as -1.
 */
function inflatedSize(data: Buffer, entry: ZipEntry): Promise<number> {
  if (entry.method === STORED) return Promise.resolve(data.length);
  return new Promise((resolve) => {
    const inflater = createInflateRaw();
    let counted = 0;
    inflater.on('data', (chunk: Buffer) => {
      counted += chunk.length;
      if (counted > entry.inflatedSize) {
        inflater.destroy();
        resolve(counted);
      }
    });
    inflater.on('end', () => resolve(counted));
    inflater.on('error', () => resolve(-1));
    inflater.end(data);
  });
}
