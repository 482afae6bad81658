import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import {
  ContactReportItem, ContactReports, ItemChoice, ReportAddInput, ReportAdvancedFilterInput, ReportCollection, ReportFavorites, ReportListResult, ReportRunCsv,
  ReportRunInput, ReportRunStatus,
} from '../schema/reporting.js';
import * as reporting from '../services/reporting/reporting.js';

@Resolver()
export class ReportingResolver {
  @Authorized('staff')
  @Query(() => ReportListResult, { description: 'The report catalog the caller can see, one page at a time (ReportAdvancedFilter; category: REST GET query, the same as ReportCategoryId).' })
  reports(
    @Ctx() ctx: RequestContext,
    @Arg('filter', () => ReportAdvancedFilterInput, { nullable: true }) filter?: ReportAdvancedFilterInput | null,
    @Arg('category', () => String, { nullable: true }) category?: string | null,
  ) {
    return reporting.listReports(ctx, filter, category);
  }

  @Authorized('staff')
  @Mutation(() => ReportCollection, { description: 'Adds a custom report (contacts unless ReportTypeId says memberships or event-registrations; private to the caller with IsPrivateForUser).' })
  addReport(@Ctx() ctx: RequestContext, @Arg('input', () => ReportAddInput) input: ReportAddInput) {
    return reporting.addReport(ctx, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'Deletes a custom report (system reports: 409; stale AuditId: 409) with its runs; answers its id.' })
  deleteReport(@Ctx() ctx: RequestContext, @Arg('reportId', () => Int) reportId: number, @Arg('auditId', () => Int) auditId: number) {
    return reporting.deleteReport(ctx, reportId, auditId);
  }

  @Authorized('staff')
  @Query(() => ContactReports, { description: 'The reports about one contact (contactId documented str: not an integer, or not a contact of the tenant: 404).' })
  contactReports(@Ctx() ctx: RequestContext, @Arg('contactId', () => String) contactId: string) {
    return reporting.contactReports(ctx, contactId);
  }

  @Authorized('staff')
  @Query(() => [ContactReportItem], { description: 'The reports about one contact, of a category when given; parameters (the documented Object body) are accepted and not used.' })
  contactReportList(
    @Ctx() ctx: RequestContext,
    @Arg('contactId', () => String) contactId: string,
    @Arg('category', () => String, { nullable: true }) category?: string | null,
    @Arg('parameters', () => GraphQLJSON, { nullable: true }) _parameters?: unknown,
  ) {
    return reporting.contactReportList(ctx, contactId, category);
  }

  @Authorized('staff')
  @Query(() => [ItemChoice], { description: 'The reports whose name holds the text (REST: this[]), at most 100, by name; length is accepted and not used.' })
  tenantReports(
    @Ctx() ctx: RequestContext,
    @Arg('text', () => String, { nullable: true }) text?: string | null,
    @Arg('length', () => String, { nullable: true }) _length?: string | null,
  ) {
    return reporting.tenantReports(ctx, text);
  }

  @Authorized('staff')
  @Query(() => ReportFavorites, { description: 'The caller\'s favorite reports (at most 100, by name).' })
  reportFavorites(@Ctx() ctx: RequestContext) {
    return reporting.reportFavorites(ctx);
  }

  @Authorized('staff')
  @Mutation(() => Boolean, { description: 'GraphQL-only: marks (true) or unmarks (false) a report as one of the caller\'s favorites; answers the new state.' })
  setReportFavorite(@Ctx() ctx: RequestContext, @Arg('reportId', () => Int) reportId: number, @Arg('isFavorite', () => Boolean) isFavorite: boolean) {
    return reporting.setReportFavorite(ctx, reportId, isFavorite);
  }

  @Authorized('staff')
  @Mutation(() => ReportRunStatus, {
    description: 'GraphQL-only: runs a report. The run is stored queued and produced by a background job (CSV, progress in reportRun); '
      + 'ContactId is required for a report about one contact and narrows any other report to that contact.',
  })
  runReport(@Ctx() ctx: RequestContext, @Arg('input', () => ReportRunInput) input: ReportRunInput) {
    return reporting.runReport(ctx, input);
  }

  @Authorized('staff')
  @Query(() => ReportRunStatus, { description: 'GraphQL-only: a report run, with its state and progress.' })
  reportRun(@Ctx() ctx: RequestContext, @Arg('reportRunId', () => Int) reportRunId: number) {
    return reporting.reportRun(ctx, reportRunId);
  }

  @Authorized('staff')
  @Query(() => ReportRunCsv, { description: 'GraphQL-only: the CSV of a completed run (409 before).' })
  reportRunCsv(@Ctx() ctx: RequestContext, @Arg('reportRunId', () => Int) reportRunId: number) {
    return reporting.reportRunCsv(ctx, reportRunId);
  }
}
