import type { FileTypeResult } from 'file-type';

/**
 * Libraries for file formats that few requests need — images (sharp), file signatures
 * (file-type), Word documents (docxtemplater, pizzip), SAML metadata (xmlbuilder2), iCalendar
 * (ical-generator) — loaded on first use instead of at start: together about 15 MB of every
 * serving process's memory (BENCHMARKS.md), now paid only by a process that does such work.
 * Node keeps a module once loaded, so a later call costs one resolved promise.
 */
export async function loadSharp() {
  return (await import('sharp')).default;
}

/** The file type its signature (magic bytes) says `bytes` are, if any. */
export async function fileTypeFromBuffer(bytes: Uint8Array): Promise<FileTypeResult | undefined> {
  return (await import('file-type')).fileTypeFromBuffer(bytes);
}

export async function loadDocx() {
  const [{ default: Docxtemplater }, { default: PizZip }] = await Promise.all([import('docxtemplater'), import('pizzip')]);
  return { Docxtemplater, PizZip };
}

export async function loadXmlBuilder() {
  return (await import('xmlbuilder2')).create;
}

export async function loadIcal() {
  return import('ical-generator');
}
