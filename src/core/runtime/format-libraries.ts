import type { FileTypeResult } from 'file-type';

/**
 * Libraries that few requests need — images (sharp), file signatures (file-type), Word documents
 * (docxtemplater, pizzip), SAML metadata (xmlbuilder2), iCalendar (ical-generator), HTML
 * sanitizing (sanitize-html with its parser and PostCSS), sending mail (nodemailer) — loaded on
 * first use instead of at start: together about 20 MB of every serving process's memory
 * (BENCHMARKS.md), now paid only by a process that does such work. Node keeps a module once
 * loaded, so a later call costs one resolved promise.
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

/** For the saves that store HTML (terms of use, signatures, social feed embeds). */
export async function loadSanitizeHtml() {
  return (await import('sanitize-html')).default;
}

/** For the mail jobs. */
export async function loadMailTransport() {
  return (await import('nodemailer')).createTransport;
}
