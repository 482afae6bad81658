import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../../core/config.js';
import type { RequestContext } from '../../core/context.js';
import { ApiError, BadInput, NotFound, PayloadTooLarge } from '../../core/errors.js';
import { fileTypeFromBuffer } from '../../core/runtime/format-libraries.js';
import { idOf } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { checkZipArchive, zipLimits } from '../../core/external/zip-archive.js';
import { deleteRecordReturning, readOr404, saveRecord } from '../../core/data/records.js';
import { DocumentGenerationTemplate } from '../../entities/document-template.js';
import { StoredFile } from '../../entities/file.js';
import type { Tenant } from '../../entities/tenant.js';
import { lookupChoices, rowActions, type ListOptionsInput, type LookupChoiceInt } from '../../schema/common.js';
import type {
  AvailableMergeFields, DocumentGenerationGeneratedDocument, DocumentGenerationTemplateAddEdit, DocumentGenerationTemplateAddEditInput,
  DocumentGenerationTemplateCollectionItem, DocumentGenerationTemplateFile, DocumentGenerationTemplates, DocumentGenerationType,
} from '../../schema/document-templates.js';
import {
  DOCUMENT_GENERATION_TYPES, documentGenerationType, isWordDocument, mergeFieldGroups, mergeValues, renderDocx, wordDocument,
} from './document-generation.js';
import { findFile, readFile, releaseFiles, storeFile, storeTenantFile } from '../files/files.js';

/*
 * Document generation templates (decided where the documents are silent): staff only. A template
 * belongs to one document generation type and holds one DOCX file of the file service (purpose
 * `document-templates`), uploaded first (GraphQL uploadDocumentGenerationTemplateFile, base64)
 * and attached by its FileId when saving. A copy shares the source's file. Generating a document
 * (GraphQL generateDocument) merges one record's fields into the template with docxtemplater:
 * tags are written {Contact.FirstName}; the fields each type offers are availablemergefields.
 */

export const TEMPLATE_PURPOSE = 'document-templates';
const DOCX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const NOUN = 'The document generation template';
const FIELDS = ['id', 'documentGenerationTypeId', 'name', 'file', 'auditId'] as const;
type TemplateRow = Pick<DocumentGenerationTemplate, (typeof FIELDS)[number]>;

const templateList = defineList(DocumentGenerationTemplate, {
  operations: ['Query.documentGenerationTemplates', 'Query.documentGenerationTemplateLookup'],
  orderBy: { Name: 'name', DocumentGenerationTemplateId: 'id', DocumentGenerationTypeId: 'documentGenerationTypeId' },
  defaultOrder: 'Name',
  search: ['name', 'documentGenerationTypeId'],
});

const INSTRUCTION = 'Upload a Word (DOCX) file and write merge fields in braces, e.g. {Contact.FirstName}; '
  + 'GET /api/documentgenerationtemplates/availablemergefields/{documentgenerationtypeid} lists the fields of each type. '
  + 'Fields without a value are left empty.';

/** Every template, one page (default 100, OrderBy Name, DocumentGenerationTemplateId, DocumentGenerationTypeId). */
export async function listTemplates(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<DocumentGenerationTemplates> {
  const { rows } = await listQuery(ctx, DocumentGenerationTemplate, templateList, options, { fields: FIELDS });
  return { Instruction: INSTRUCTION, Items: await toCollectionItems(ctx, rows) };
}

export async function getTemplate(ctx: RequestContext, templateId: number): Promise<DocumentGenerationTemplateAddEdit> {
  const row = await readOr404(ctx, DocumentGenerationTemplate, FIELDS, templateId, NOUN);
  return {
    DocumentGenerationTemplateId: row.id, AuditId: row.auditId, DocumentGenerationTypeId: row.documentGenerationTypeId, Name: row.name,
    FileId: row.file ? String(idOf(row.file)) : null, FileExists: row.file !== null,
  };
}

/**
 * Create-or-update (path id documented str: one that is not an integer finds nothing, 404). A new
 * template needs a FileId; an update without one keeps its file. A replaced file is released.
 */
export async function saveTemplate(ctx: RequestContext, templateIdText: string, input: DocumentGenerationTemplateAddEditInput): Promise<DocumentGenerationTemplateCollectionItem> {
  const templateId = recordKey(templateIdText);
  const type = documentGenerationType(input.DocumentGenerationTypeId);
  if (!type) throw BadInput.field('DocumentGenerationTypeId', `must be one of ${DOCUMENT_GENERATION_TYPES.map((candidate) => candidate.id).join(', ')}`);
  const fileId = input.FileId ? Number(input.FileId) : null;
  if (!templateId && fileId === null) throw BadInput.field('FileId', 'is required: upload the template file first');
  if (fileId !== null) await findFile(ctx, fileId, [TEMPLATE_PURPOSE]).catch(() => { throw BadInput.field('FileId', 'is not an uploaded template file'); });
  const previousFileId = templateId ? idOf((await readOr404(ctx, DocumentGenerationTemplate, ['file'], templateId, NOUN)).file) : null;
  const saved = await saveRecord(ctx, DocumentGenerationTemplate, { id: templateId, auditId: input.AuditId }, {
    documentGenerationTypeId: type.id, name: input.Name.trim(), ...(fileId === null ? {} : { file: fileId }),
  }, NOUN);
  if (previousFileId !== null && fileId !== null && previousFileId !== fileId) await releaseFiles(ctx, [previousFileId]);
  const [item] = await toCollectionItems(ctx, [saved]);
  return item;
}

/** Deletes a template (a stale AuditId is 409) and releases its file when no other template uses it. */
export async function deleteTemplate(ctx: RequestContext, templateId: number, auditId: number | null | undefined): Promise<number> {
  const deleted = await deleteRecordReturning(ctx, DocumentGenerationTemplate, ['file'], templateId, auditId, NOUN);
  await releaseFiles(ctx, [idOf(deleted.file)]);
  return templateId;
}

/** A copy named "Copy of …" of the same type, sharing the source's file. */
export async function copyTemplate(ctx: RequestContext, templateId: number): Promise<DocumentGenerationTemplateCollectionItem> {
  const source = await readOr404(ctx, DocumentGenerationTemplate, FIELDS, templateId, NOUN);
  const copy = await saveRecord(ctx, DocumentGenerationTemplate, {}, {
    documentGenerationTypeId: source.documentGenerationTypeId, name: `Copy of ${source.name}`.slice(0, 200), file: source.file === null ? null : idOf(source.file),
  }, NOUN);
  const [item] = await toCollectionItems(ctx, [copy]);
  return item;
}

/** The templates of one document generation type as lookup choices (unknown type: 404). */
export async function templateLookup(ctx: RequestContext, typeId: string, options: ListOptionsInput | null | undefined): Promise<LookupChoiceInt[]> {
  const type = documentGenerationType(typeId);
  if (!type) throw new NotFound('The document generation type');
  const { rows } = await listQuery(ctx, DocumentGenerationTemplate, templateList, options, { fields: ['id', 'name'], where: { documentGenerationTypeId: type.id } });
  return lookupChoices(rows);
}

export function templateTypes(): DocumentGenerationType[] {
  return DOCUMENT_GENERATION_TYPES.map((type) => ({ DocumentGenerationTypeId: type.id, Name: type.name, RecordType: type.record }));
}

/** The merge fields of a type, from the entities it generates from (unknown type: 404). */
export function availableMergeFields(ctx: RequestContext, typeId: string): AvailableMergeFields {
  ctx.requireCaller();
  const type = documentGenerationType(typeId);
  if (!type) throw new NotFound('The document generation type');
  return { DocumentGenerationTypeId: type.id, AvailableFieldsGroup: mergeFieldGroups(ctx.em, type.record) };
}

/** The template file of a template, as the download route serves it (404 unless `fileId` is the template's file). */
export async function templateFileForDownload(ctx: RequestContext, templateId: number, fileId: number) {
  ctx.requireRole('staff');
  const template = await readOr404(ctx, DocumentGenerationTemplate, ['file'], templateId, NOUN);
  if (template.file === null || idOf(template.file) !== fileId) throw new NotFound('The template file');
  const file = await findFile(ctx, fileId, [TEMPLATE_PURPOSE]);
  return { file, bytes: await readFile(ctx, file) };
}

/** Keeps an uploaded DOCX (base64) as a template file; answers its FileId for saving a template. */
export async function uploadTemplateFile(ctx: RequestContext, fileName: string, contentBase64: string): Promise<DocumentGenerationTemplateFile> {
  const text = contentBase64.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) throw BadInput.field('contentBase64', 'must be base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > ctx.app.config.UPLOAD_MAX_BYTES) throw new PayloadTooLarge(`The file is larger than ${ctx.app.config.UPLOAD_MAX_BYTES} bytes.`);
  if (!isZip(bytes)) throw notWordDocument();
  await checkZipArchive(bytes, zipLimits(ctx.app.config), 'contentBase64');
  const detected = await fileTypeFromBuffer(bytes);
  if (detected?.mime !== DOCX_MEDIA_TYPE || !(await isWordDocument(bytes))) throw notWordDocument();
  const file = await storeFile(ctx, { name: docxName(fileName), mediaType: DOCX_MEDIA_TYPE, bytes, purpose: TEMPLATE_PURPOSE });
  return { FileId: String(file.id), Name: file.name, MediaType: file.mediaType, Size: file.size };
}

/** Generates a DOCX from a template and one record of its type's record kind (a contact or a membership). */
export async function generateDocument(ctx: RequestContext, templateId: number, recordId: number): Promise<DocumentGenerationGeneratedDocument> {
  const template = await readOr404(ctx, DocumentGenerationTemplate, FIELDS, templateId, NOUN);
  const type = documentGenerationType(template.documentGenerationTypeId);
  if (!type || template.file === null) throw BadInput.field('DocumentGenerationTemplateId', 'the template has no file to generate from');
  const values = await mergeValues(ctx.em, type.record, recordId, ctx.tenantId);
  if (!values) throw new NotFound(`The ${type.record.toLowerCase()}`);
  const file = await findFile(ctx, idOf(template.file), [TEMPLATE_PURPOSE]);
  const document = await renderDocx(await readFile(ctx, file), values, zipLimits(ctx.app.config));
  return { FileName: docxName(`${template.name}-${recordId}`), MediaType: DOCX_MEDIA_TYPE, ContentBase64: document.toString('base64') };
}

/** Demo templates: a contact letter and a membership certificate, each with a small DOCX. */
export async function seedDocumentTemplates(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const owner = { tenantId: tenant.id, uploadedBy: null, config: loadConfig() };
  for (const [typeId, name, text] of [
    ['contactletter', 'Welcome letter', 'Dear {Contact.FirstName} {Contact.LastName},'],
    ['member', 'Membership certificate', '{Contact.Name} is a {MembershipType.Name} member since {Membership.StartDate}.'],
  ] as const) {
    const file = await storeTenantFile(em, owner, { name: `${marker}${typeId}.docx`, mediaType: DOCX_MEDIA_TYPE, bytes: await wordDocument([`${marker} ${text}`]), purpose: TEMPLATE_PURPOSE });
    em.create(DocumentGenerationTemplate, { tenant, documentGenerationTypeId: typeId, name: `${marker}${name}`, file: file.id });
  }
  await em.flush();
}

// ---------------------------------------------------------------------------------------------

/** A record key from a path segment documented str: not an integer → no record (404). */
function recordKey(text: string): number {
  if (!/^\d{1,9}$/.test(text.trim())) throw new NotFound(NOUN);
  return Number(text.trim());
}

/** Whether `bytes` start as a ZIP does (a DOCX is one): anything else is not opened as an archive at all. */
function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
}

function notWordDocument(): ApiError {
  return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'A document template must be a Word (DOCX) file.');
}

/** A safe file name ending in .docx. */
function docxName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is replaced
  const base = name.replace(/[\u0000-\u001f\u007f/\\]+/g, '_').replace(/\.docx$/i, '').trim().slice(0, 200) || 'template';
  return `${base}.docx`;
}

/** Collection items for rows, with their files' names in one statement. */
async function toCollectionItems(ctx: RequestContext, rows: Pick<TemplateRow, 'id' | 'documentGenerationTypeId' | 'name' | 'file' | 'auditId'>[]): Promise<DocumentGenerationTemplateCollectionItem[]> {
  const files = await ctx.loaders.byId(StoredFile).loadMany(rows.flatMap((row) => (row.file === null ? [] : [idOf(row.file)])));
  const names = new Map(files.flatMap((file) => (file && !(file instanceof Error) ? [[file.id, file.name] as const] : [])));
  return rows.map((row) => {
    const fileId = row.file === null ? null : idOf(row.file);
    return {
      DocumentGenerationTemplateId: row.id, DocumentGenerationTypeId: row.documentGenerationTypeId, AuditId: row.auditId,
      TemplateType: documentGenerationType(row.documentGenerationTypeId)?.name ?? row.documentGenerationTypeId, Name: row.name,
      AllowEdit: ctx.isStaff, FileId: fileId === null ? null : String(fileId), FileName: fileId === null ? null : names.get(fileId) ?? null,
      FileEditUrl: fileId === null ? null : `/api/documentgenerationtemplates/download/${row.id}/${fileId}`, Actions: rowActions(ctx.isStaff),
    };
  });
}
