import { ReferenceKind, type EntityClass, type EntityProperty } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadInput } from '../../core/errors.js';
import { loadDocx } from '../../core/runtime/format-libraries.js';
import { checkZipArchive, type ZipLimits } from '../../core/external/zip-archive.js';
import { Contact } from '../../entities/contact.js';
import { Membership, MembershipLevel, MembershipType } from '../../entities/membership.js';
import { Tenant } from '../../entities/tenant.js';
import type { DocumentGenerationMergeField, DocumentGenerationMergeFieldGroup } from '../../schema/document-templates.js';

/*
 * Document generation types and their merge fields. Every type generates from one kind of
 * record; the documents name types whose own records (invoices, payments, statements, badges,
 * sales) do not exist in this service yet, so those generate from the record that does: the
 * contact the document is for. The mapping (RECORD_OF_TYPE below):
 *   Membership (membership, its type and level, its contact, the tenant): member, membershiptypeactivecensus;
 *   Contact (the contact and the tenant): every other type.
 * Merge fields are read from the entities' ORM metadata (their scalar columns), so a column added
 * to an entity is a merge field at once; only internal columns are left out (HIDDEN).
 */

export type RecordType = 'Contact' | 'Membership';

interface TypeInfo {
  id: string;
  name: string;
  /** The path after /lookup/ of its fixed-type lookup. */
  lookupPath: string;
  record: RecordType;
}

const type = (id: string, name: string, record: RecordType = 'Contact', lookupPath = id): TypeInfo => ({ id, name, lookupPath, record });

/** The system document generation types (the 17 of the fixed-type lookups). */
export const DOCUMENT_GENERATION_TYPES: readonly TypeInfo[] = [
  type('attendeebadge', 'Attendee badge'),
  type('brokeragestatement', 'Brokerage statement'),
  type('brokerstatementbyoffice', 'Broker statement by office'),
  type('certificate', 'Certificate'),
  type('certificatecomponent', 'Certificate component', 'Contact', 'certificate/component'),
  type('contactletter', 'Contact letter'),
  type('coverletter', 'Cover letter'),
  type('credits', 'Credits'),
  type('defaultstatement', 'Default statement'),
  type('invoices', 'Invoices'),
  type('member', 'Member', 'Membership'),
  type('membershiptypeactivecensus', 'Membership type active census', 'Membership'),
  type('payments', 'Payments'),
  type('refunds', 'Refunds'),
  type('sales', 'Sales'),
  type('salesproposal', 'Sales proposal'),
  type('singleattendeebadge', 'Single attendee badge'),
];

/** The type with this id (case-insensitive), or null. */
export function documentGenerationType(id: string): TypeInfo | null {
  const wanted = id.trim().toLowerCase();
  return DOCUMENT_GENERATION_TYPES.find((candidate) => candidate.id === wanted) ?? null;
}

interface Group {
  name: string;
  entity: EntityClass<object>;
}

/** The records whose fields a document of each record type can merge, by merge-tag prefix. */
const GROUPS: Record<RecordType, Group[]> = {
  Contact: [{ name: 'Contact', entity: Contact }, { name: 'Tenant', entity: Tenant }],
  Membership: [
    { name: 'Membership', entity: Membership }, { name: 'MembershipType', entity: MembershipType }, { name: 'MembershipLevel', entity: MembershipLevel },
    { name: 'Contact', entity: Contact }, { name: 'Tenant', entity: Tenant },
  ],
};

/** Columns that are bookkeeping (versions, search keys computed for lists), not document content. */
const HIDDEN = new Set(['auditId', 'updatedAt', 'deletedAt', 'emailSuppressedAt', 'emailSuppressionReason', 'nameKey', 'key', 'searchText', 'sortName']);
/** Column types a document can show, by the column's SQL type (JSON, arrays and bytes cannot be shown). */
const SHOWN_COLUMNS: Record<string, string> = {
  varchar: 'string', 'character varying': 'string', text: 'string', char: 'string', character: 'string', uuid: 'string',
  int: 'number', integer: 'number', smallint: 'number', bigint: 'number', serial: 'number', numeric: 'number', decimal: 'number', real: 'number', 'double precision': 'number',
  boolean: 'boolean', date: 'date', timestamptz: 'datetime', timestamp: 'datetime', 'timestamp with time zone': 'datetime',
};

function shownProps(em: EntityManager, entity: EntityClass<object>): { prop: EntityProperty; type: string }[] {
  return em.getMetadata().get(entity).props.flatMap((prop) => {
    const column = String(prop.columnTypes?.[0] ?? '').toLowerCase().replace(/\(.*\)$/, '').trim();
    const shown = SHOWN_COLUMNS[column];
    return prop.kind === ReferenceKind.SCALAR && !prop.lazy && !HIDDEN.has(prop.name) && shown ? [{ prop, type: shown }] : [];
  });
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const label = (name: string) => pascal(name).replace(/([a-z0-9])([A-Z])/g, '$1 $2');

/** The merge fields of a record type, group by group, from the entities' metadata. */
export function mergeFieldGroups(em: EntityManager, record: RecordType): DocumentGenerationMergeFieldGroup[] {
  return GROUPS[record].map((group) => ({
    GroupName: group.name,
    Fields: shownProps(em, group.entity).map(({ prop, type }): DocumentGenerationMergeField => ({
      Name: `${group.name}.${pascal(prop.name)}`, Label: `${group.name} ${label(prop.name)}`, Type: type,
    })),
  }));
}

/** The merge values of one record of `record` type, keyed by merge tag; null when there is no such record (of the tenant). */
export async function mergeValues(em: EntityManager, record: RecordType, recordId: number, tenantId: number): Promise<Record<string, string> | null> {
  const records: Partial<Record<string, object | null>> = {};
  if (record === 'Membership') {
    const membership = await em.findOne(Membership, { id: recordId }, { populate: ['contact', 'membershipType', 'membershipLevel'] });
    if (!membership) return null;
    Object.assign(records, { Membership: membership, MembershipType: membership.membershipType, MembershipLevel: membership.membershipLevel, Contact: membership.contact });
  } else {
    const contact = await em.findOne(Contact, { id: recordId });
    if (!contact) return null;
    records.Contact = contact;
  }
  records.Tenant = await em.findOne(Tenant, { id: tenantId }, { filters: false });
  const values: Record<string, string> = {};
  for (const group of GROUPS[record]) {
    const source = records[group.name] as Record<string, unknown> | null | undefined;
    for (const { prop, type } of shownProps(em, group.entity)) values[`${group.name}.${pascal(prop.name)}`] = format(source?.[prop.name], type);
  }
  return values;
}

function format(value: unknown, type: string): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? '';
}

/**
 * The DOCX a template makes with `values` merged in; a template that is not a valid DOCX template
 * is a 400, one over `limits` a 413 (checked again here: the limits may have been lowered since
 * the upload, and a template stored before they existed was never checked).
 */
export async function renderDocx(template: Buffer, values: Record<string, string>, limits: ZipLimits): Promise<Buffer> {
  await checkZipArchive(template, limits, 'DocumentGenerationTemplateId');
  const { Docxtemplater, PizZip } = await loadDocx();
  try {
    const document = new Docxtemplater(new PizZip(template), { paragraphLoop: true, linebreaks: true, nullGetter: () => '', errorLogging: false });
    document.render(values);
    return document.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  } catch (error) {
    throw BadInput.field('DocumentGenerationTemplateId', `the template file is not a usable DOCX template (${templateProblem(error)})`);
  }
}

/** Docxtemplater's explanation of a template error (a tag left open, an unknown tag type), without internals. */
function templateProblem(error: unknown): string {
  const properties = (error as { properties?: { errors?: { properties?: { explanation?: string } }[]; explanation?: string } }).properties;
  const explanations = properties?.errors?.map((inner) => inner.properties?.explanation).filter(Boolean) ?? [];
  const text = explanations.length ? explanations.join('; ') : properties?.explanation ?? 'it could not be read as a Word document';
  return text.slice(0, 500);
}

/** Whether `bytes` open as a Word document (a ZIP holding word/document.xml); call checkZipArchive first. */
export async function isWordDocument(bytes: Buffer): Promise<boolean> {
  const { PizZip } = await loadDocx();
  try {
    return new PizZip(bytes).file('word/document.xml') !== null;
  } catch {
    return false;
  }
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** A minimal Word document of plain paragraphs (demo templates). */
export async function wordDocument(paragraphs: string[]): Promise<Buffer> {
  const { PizZip } = await loadDocx();
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const zip = new PizZip();
  zip.file('[Content_Types].xml', `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">`
    + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
    + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  zip.file('word/document.xml', `${XML_HEAD}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
    + paragraphs.map((text) => `<w:p><w:r><w:t xml:space="preserve">${escape(text)}</w:t></w:r></w:p>`).join('') + '</w:body></w:document>');
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
