import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ContactImportRowsInput, ContactImportStartInput, ImportDownload, ImportPreview, ImportRowResults, ImportStatus } from '../schema/imports.js';
import { contactExportCsv } from '../services/imports/export.js';
import * as imports from '../services/imports/imports.js';

@Resolver()
export class ImportsResolver {
  @Authorized('staff')
  @Query(() => ImportStatus, { description: 'A contact import (upload the CSV with POST /api/imports/upload): its state, progress and counts.' })
  contactImport(@Ctx() ctx: RequestContext, @Arg('importId', () => Int) importId: number) {
    return imports.contactImportStatus(ctx, importId);
  }

  @Authorized('staff')
  @Query(() => ImportPreview, { description: 'The headers and first rows of an uploaded file, with the suggested column mapping.' })
  contactImportPreview(@Ctx() ctx: RequestContext, @Arg('importId', () => Int) importId: number) {
    return imports.contactImportPreview(ctx, importId);
  }

  @Authorized('staff')
  @Query(() => ImportRowResults, { description: 'The row outcomes of an import\'s runs: every row of a dry run, the rejected rows of an import.' })
  contactImportRows(
    @Ctx() ctx: RequestContext,
    @Arg('importId', () => Int) importId: number,
    @Arg('options', () => ContactImportRowsInput, { nullable: true }) options?: ContactImportRowsInput | null,
  ) {
    return imports.contactImportRows(ctx, importId, options);
  }

  @Authorized('staff')
  @Query(() => ImportDownload, { description: 'Where to download the rejected rows of an import\'s finished run, in the file\'s columns plus ImportError (409 before it finished).' })
  contactImportRejectedCsv(@Ctx() ctx: RequestContext, @Arg('importId', () => Int) importId: number) {
    return imports.contactImportRejectedCsv(ctx, importId);
  }

  @Authorized('staff')
  @Mutation(() => ImportStatus, { description: 'Starts a dry run or the import of an uploaded file as a background job (409 while one of it is under way).' })
  startContactImport(@Ctx() ctx: RequestContext, @Arg('importId', () => Int) importId: number, @Arg('input', () => ContactImportStartInput) input: ContactImportStartInput) {
    return imports.startContactImport(ctx, importId, input);
  }

  @Authorized('staff')
  @Mutation(() => ImportStatus, { description: 'Cancels the run under way: it stops after its current batch; what it committed stays.' })
  cancelContactImport(@Ctx() ctx: RequestContext, @Arg('importId', () => Int) importId: number) {
    return imports.cancelContactImport(ctx, importId);
  }

  @Authorized('staff')
  @Query(() => ImportDownload, { description: 'Where to download every live contact with its memberships as CSV, in exactly the columns an import takes.' })
  contactExportCsv(@Ctx() ctx: RequestContext) {
    return contactExportCsv(ctx);
  }
}
