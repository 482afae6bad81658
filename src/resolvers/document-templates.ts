import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput, LookupChoiceInt } from '../schema/common.js';
import {
  AvailableMergeFields, DocumentGenerationGeneratedDocument, DocumentGenerationTemplateAddEdit, DocumentGenerationTemplateAddEditInput,
  DocumentGenerationTemplateCollectionItem, DocumentGenerationTemplateFile, DocumentGenerationTemplates, DocumentGenerationType,
} from '../schema/document-templates.js';
import * as templates from '../services/document-templates/document-templates.js';

@Resolver()
export class DocumentGenerationTemplateResolver {
  @Authorized('staff')
  @Query(() => DocumentGenerationTemplates, { description: 'The document generation templates, one page at a time (default 100; OrderBy Name, DocumentGenerationTemplateId, DocumentGenerationTypeId).' })
  documentGenerationTemplates(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return templates.listTemplates(ctx, options);
  }

  @Authorized('staff')
  @Query(() => DocumentGenerationTemplateAddEdit, { description: 'One template, for editing.' })
  documentGenerationTemplate(@Ctx() ctx: RequestContext, @Arg('documentGenerationTemplateId', () => Int) documentGenerationTemplateId: number) {
    return templates.getTemplate(ctx, documentGenerationTemplateId);
  }

  @Authorized('staff')
  @Mutation(() => DocumentGenerationTemplateCollectionItem, { description: 'Creates ("0") or updates a template; the id is documented str: one that is not an integer is 404.' })
  saveDocumentGenerationTemplate(
    @Ctx() ctx: RequestContext,
    @Arg('documentGenerationTemplateId', () => String) documentGenerationTemplateId: string,
    @Arg('input', () => DocumentGenerationTemplateAddEditInput) input: DocumentGenerationTemplateAddEditInput,
  ) {
    return templates.saveTemplate(ctx, documentGenerationTemplateId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a template (409 for a stale AuditId); its file is released when no other template uses it. Answers its id.' })
  deleteDocumentGenerationTemplate(@Ctx() ctx: RequestContext, @Arg('documentGenerationTemplateId', () => Int) documentGenerationTemplateId: number, @Arg('auditId', () => Int) auditId: number) {
    return templates.deleteTemplate(ctx, documentGenerationTemplateId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => DocumentGenerationTemplateCollectionItem, { description: 'Copies a template ("Copy of …", same type, sharing its file).' })
  copyDocumentGenerationTemplate(@Ctx() ctx: RequestContext, @Arg('documentGenerationTemplateId', () => Int) documentGenerationTemplateId: number) {
    return templates.copyTemplate(ctx, documentGenerationTemplateId);
  }

  @Authorized('staff')
  @Query(() => AvailableMergeFields, { description: 'The merge fields of a document generation type, read from the entities it generates from.' })
  documentGenerationAvailableMergeFields(@Ctx() ctx: RequestContext, @Arg('documentGenerationTypeId', () => String) documentGenerationTypeId: string) {
    return templates.availableMergeFields(ctx, documentGenerationTypeId);
  }

  @Authorized('staff')
  @Query(() => [LookupChoiceInt], { description: 'The templates of one document generation type (unknown type: 404), as lookup choices (default 100).' })
  documentGenerationTemplateLookup(
    @Ctx() ctx: RequestContext,
    @Arg('documentGenerationType', () => String) documentGenerationType: string,
    @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null,
  ) {
    return templates.templateLookup(ctx, documentGenerationType, options);
  }

  @Authorized('staff')
  @Query(() => [DocumentGenerationType], { description: 'GraphQL-only: the system document generation types and the record each generates from.' })
  documentGenerationTypes() {
    return templates.templateTypes();
  }

  @Authorized('staff')
  @Mutation(() => DocumentGenerationTemplateFile, {
    description: 'GraphQL-only: keeps a DOCX template file sent base64-encoded (at most the 1 MiB request limit; not a DOCX: 415) and answers its FileId for saving a template.',
  })
  uploadDocumentGenerationTemplateFile(@Ctx() ctx: RequestContext, @Arg('fileName', () => String) fileName: string, @Arg('contentBase64', () => String) contentBase64: string) {
    return templates.uploadTemplateFile(ctx, fileName, contentBase64);
  }

  @Authorized('staff')
  @Mutation(() => DocumentGenerationGeneratedDocument, {
    description: 'GraphQL-only: generates a DOCX from a template and one record (recordId: a contact, or for the member and census types a membership), merging its fields (docxtemplater).',
  })
  generateDocument(@Ctx() ctx: RequestContext, @Arg('documentGenerationTemplateId', () => Int) documentGenerationTemplateId: number, @Arg('recordId', () => Int) recordId: number) {
    return templates.generateDocument(ctx, documentGenerationTemplateId, recordId);
  }
}
