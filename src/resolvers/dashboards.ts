import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ListOptionsInput } from '../schema/common.js';
import {
  ChartData, DashboardMembership, Project, ProjectInput, QuickLookData, SalesOpportunity, SalesOpportunityInput, ScoreboardDatapoint, TaskDynamic,
} from '../schema/dashboards.js';
import * as records from '../services/dashboards/dashboard-records.js';
import * as dashboards from '../services/dashboards/dashboards.js';

const MEMBERSHIP_SCOPE = 'A membership type\'s id; 0, "all" or absent: every type. Another id is 404.';
const MONTHS = 'The last 12 months, this month last (yyyy-mm). Pending memberships and deleted contacts never count.';

/** The dashboard widgets (staff only): every figure computed from the tenant's records when asked. */
@Resolver()
export class DashboardResolver {
  @Authorized('staff')
  @Query(() => ChartData, { description: `New memberships per month: a contact's first membership of its type, by start date. ${MONTHS}` })
  dashboardNewMemberships(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: MEMBERSHIP_SCOPE }) id?: string | null) {
    return dashboards.newMemberships(ctx, id);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: `Renewed memberships per month (every type): memberships that follow an earlier one of the contact in the same type, by start date. ${MONTHS}` })
  dashboardRenewedMemberships(@Ctx() ctx: RequestContext) {
    return dashboards.renewedMemberships(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: `Dropped memberships per month: ended (before today) with no later membership of the contact in the same type, by end date. ${MONTHS}` })
  dashboardDroppedMemberships(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: MEMBERSHIP_SCOPE }) id?: string | null) {
    return dashboards.droppedMemberships(ctx, id);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: `Memberships running on each month's last day (today, for this month). ${MONTHS}` })
  dashboardTotalMemberships(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: MEMBERSHIP_SCOPE }) id?: string | null) {
    return dashboards.totalMemberships(ctx, id);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Memberships running today by membership type; with a type\'s id, by level within that type ("(no level)" last). Point Id: the type or level.' })
  dashboardMembershipTypeDistribution(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: MEMBERSHIP_SCOPE }) id?: string | null) {
    return dashboards.membershipTypeDistribution(ctx, id);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Membership categories: category lists are not part of this service, so the categories are the membership levels. Memberships running today per "Type / Level" ("Type / (no level)"), only those with members. Point Id: the level.' })
  dashboardMembershipCategories(@Ctx() ctx: RequestContext) {
    return dashboards.membershipCategories(ctx);
  }

  @Authorized('staff')
  @Query(() => DashboardMembership, { description: `New, renewed, dropped and total memberships of every type per month, and today's memberships per type. ${MONTHS}` })
  dashboardMembershipMonthly(@Ctx() ctx: RequestContext) {
    return dashboards.membershipMonthly(ctx);
  }

  @Authorized('staff')
  @Query(() => [ScoreboardDatapoint], { description: 'This year\'s membership scoreboard: Members (today), New, Renewed, Dropped, Retention (percent), Pending applications.' })
  dashboardOverallMembershipStats(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: MEMBERSHIP_SCOPE }) id?: string | null) {
    return dashboards.overallMembershipStats(ctx, id);
  }

  @Authorized('staff')
  @Query(() => [ScoreboardDatapoint], { description: 'Organizations: the tenant\'s (organizations, member organizations, chapters, affiliated people) or one organization\'s (people, chapters, memberships today, open balance).' })
  dashboardOverallOrgStats(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: 'An organization contact\'s id; 0, "all" or absent: every organization. Another id is 404.' }) id?: string | null) {
    return dashboards.overallOrgStats(ctx, id);
  }

  @Authorized('staff')
  @Query(() => QuickLookData, { description: 'Pending events: events still to come (starting after now) that are open or still drafts; the SubHeading says how many are drafts and how many attendees they have.' })
  dashboardPendingEvents(@Ctx() ctx: RequestContext) {
    return dashboards.pendingEventsQuickLook(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, {
    description: 'Attendee registrations (cancelled ones not counted). Every event: by the month they were made (UTC), the last 12 months. One event: per registration type (point Id: the type), with Registered, Cancelled, Capacity and Seats left.',
  })
  dashboardEventAttendeeRegistrations(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: 'An event\'s id; 0, "all" or absent: every event. Another id is 404.' }) id?: string | null) {
    return dashboards.eventAttendeeRegistrations(ctx, id);
  }

  @Authorized('staff')
  @Query(() => QuickLookData, { description: 'Open invoices: how many, what they still owe, how many are past due.' })
  dashboardOpenInvoices(@Ctx() ctx: RequestContext) {
    return dashboards.openInvoicesQuickLook(ctx);
  }

  @Authorized('staff')
  @Query(() => QuickLookData, { description: 'Pending applications: memberships waiting to be accepted (status pending), and since when.' })
  dashboardPendingApplications(@Ctx() ctx: RequestContext) {
    return dashboards.pendingApplicationsQuickLook(ctx);
  }

  @Authorized('staff')
  @Query(() => QuickLookData, { description: 'Pending web content: the service keeps no web pages, so this counts uploaded images not yet placed on any record (SourceId 0).' })
  dashboardPendingWebContent(@Ctx() ctx: RequestContext) {
    return dashboards.pendingWebContentQuickLook(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Projects started on each day of this month (yyyy-mm-dd), by StartDate.' })
  dashboardNewProjectsThisMonth(@Ctx() ctx: RequestContext) {
    return dashboards.newProjectsThisMonth(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Projects started in each month of this year (yyyy-mm), by StartDate.' })
  dashboardNewProjectsThisYear(@Ctx() ctx: RequestContext) {
    return dashboards.newProjectsThisYear(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Projects completed on each day of this month (yyyy-mm-dd), by CompletedDate.' })
  dashboardProjectsCompletedThisMonth(@Ctx() ctx: RequestContext) {
    return dashboards.projectsCompletedThisMonth(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Projects completed in each month of this year (yyyy-mm), by CompletedDate.' })
  dashboardProjectsCompletedThisYear(@Ctx() ctx: RequestContext) {
    return dashboards.projectsCompletedThisYear(ctx);
  }

  @Authorized('staff')
  @Query(() => [ScoreboardDatapoint], { description: 'Projects this month: Active, Planned, Started this month, Completed this month, Overdue.' })
  dashboardProjectsActiveCurrentMonth(@Ctx() ctx: RequestContext) {
    return dashboards.projectsActiveCurrentMonth(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Won sales opportunities per month (count and amount, by ClosedDate) over the last 12 months.' })
  dashboardSalesWinsByMonth(@Ctx() ctx: RequestContext) {
    return dashboards.salesWinsByMonth(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'This year\'s wins per sales person (count and amount; point Id: the login; "(unassigned)" without one).' })
  dashboardWinsBySalesPerson(@Ctx() ctx: RequestContext) {
    return dashboards.winsBySalesPerson(ctx);
  }

  @Authorized('staff')
  @Query(() => ChartData, { description: 'Sales velocity: per month of the last 12 the won amount, wins and average days to win; extraStats Velocity = open × win rate × average won amount ÷ average days to win.' })
  dashboardSalesVelocity(@Ctx() ctx: RequestContext, @Arg('id', () => String, { nullable: true, description: 'A sales person\'s login id; 0, "all" or absent: everyone. Another id is 404.' }) id?: string | null) {
    return dashboards.salesVelocity(ctx, id);
  }

  @Authorized('staff')
  @Query(() => [ScoreboardDatapoint], { description: 'This year\'s sales funnel: the opportunities opened this year at each stage (amount in the Hint), and the win rate.' })
  dashboardSalesFunnelStatsCurrentYear(@Ctx() ctx: RequestContext) {
    return dashboards.salesFunnelStatsCurrentYear(ctx);
  }

  @Authorized('staff')
  @Query(() => TaskDynamic, { description: 'The tenant at a glance (a completed Task; the figures in Result).' })
  dashboardOverallStats(@Ctx() ctx: RequestContext) {
    return dashboards.overallStats(ctx);
  }

  @Authorized('staff')
  @Query(() => TaskDynamic, { description: 'This month on the dashboard (a completed Task; the figures in Result).' })
  dashboardTenantStats(@Ctx() ctx: RequestContext) {
    return dashboards.tenantDashboardStats(ctx);
  }
}

/** Projects and sales opportunities, GraphQL only (staff): what the project and sales widgets count. */
@Resolver()
export class DashboardRecordResolver {
  @Authorized('staff')
  @Query(() => [Project], { description: 'GraphQL only. Projects, newest start first (OrderBy Name, ProjectId, Status, StartDate, DueDate, CompletedDate; CalendarStartDate/EndDate bound StartDate).' })
  projects(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return records.listProjects(ctx, options);
  }

  @Authorized('staff')
  @Query(() => Project, { description: 'GraphQL only. One project.' })
  project(@Ctx() ctx: RequestContext, @Arg('projectId', () => Int) projectId: number) {
    return records.getProject(ctx, projectId);
  }

  @Authorized('staff')
  @Mutation(() => Project, { description: 'GraphQL only. Creates (projectId 0) or updates a project (AuditId checked: stale is 409). CompletedDate exactly when Status is completed (today when absent).' })
  saveProject(@Ctx() ctx: RequestContext, @Arg('projectId', () => Int) projectId: number, @Arg('input', () => ProjectInput) input: ProjectInput) {
    return records.saveProject(ctx, projectId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'GraphQL only. Deletes a project; answers its id.' })
  deleteProject(
    @Ctx() ctx: RequestContext,
    @Arg('projectId', () => Int) projectId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, refused (409) unless the project is still this version.' }) auditId?: number | null,
  ) {
    return records.deleteProject(ctx, projectId, auditId);
  }

  @Authorized('staff')
  @Query(() => [SalesOpportunity], { description: 'GraphQL only. Sales opportunities, newest first (OrderBy Name, SalesOpportunityId, Stage, Amount, OpenedDate, ClosedDate; CalendarStartDate/EndDate bound OpenedDate).' })
  salesOpportunities(@Ctx() ctx: RequestContext, @Arg('options', () => ListOptionsInput, { nullable: true }) options?: ListOptionsInput | null) {
    return records.listSalesOpportunities(ctx, options);
  }

  @Authorized('staff')
  @Query(() => SalesOpportunity, { description: 'GraphQL only. One sales opportunity.' })
  salesOpportunity(@Ctx() ctx: RequestContext, @Arg('salesOpportunityId', () => Int) salesOpportunityId: number) {
    return records.getSalesOpportunity(ctx, salesOpportunityId);
  }

  @Authorized('staff')
  @Mutation(() => SalesOpportunity, { description: 'GraphQL only. Creates (salesOpportunityId 0) or updates an opportunity (AuditId checked: stale is 409). ClosedDate exactly when the Stage is won or lost (today when absent).' })
  saveSalesOpportunity(@Ctx() ctx: RequestContext, @Arg('salesOpportunityId', () => Int) salesOpportunityId: number, @Arg('input', () => SalesOpportunityInput) input: SalesOpportunityInput) {
    return records.saveSalesOpportunity(ctx, salesOpportunityId, input);
  }

  @Authorized('staff')
  @Mutation(() => Int, { description: 'GraphQL only. Deletes a sales opportunity; answers its id.' })
  deleteSalesOpportunity(
    @Ctx() ctx: RequestContext,
    @Arg('salesOpportunityId', () => Int) salesOpportunityId: number,
    @Arg('auditId', () => Int, { nullable: true, description: 'When given, refused (409) unless the opportunity is still this version.' }) auditId?: number | null,
  ) {
    return records.deleteSalesOpportunity(ctx, salesOpportunityId, auditId);
  }
}
