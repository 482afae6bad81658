import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { PROJECT_STATUSES, SALES_STAGES } from '../entities/dashboards.js';
import { CALENDAR_DAY } from '../core/dates.js';

/*
 * The dashboard's documented models (ChartData, QuickLookData, ScoreboardDatapoint,
 * DashboardMembership, TaskDynamic) and the GraphQL-only project and sales opportunity records
 * its widgets count. The documents type the compound fields as str; they carry typed JSON here
 * (CONVENTIONS.md).
 */

@ObjectType({ description: 'One labelled figure: a name, its value as text, and a hint saying what it counts.' })
export class ScoreboardDatapoint {
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true, description: 'The figure as text: a count ("42"), money with two decimals ("1250.00"), a percentage ("87.5") or a number of days; null where it is undefined (a rate of nothing).' }) Value!: string | null;
  @Field(() => String, { nullable: true, description: 'What the figure counts.' }) Hint!: string | null;
}

@ObjectType({ description: 'One point of a chart: its label on the x axis and one value per series (in the order of `series`).' })
export class ChartDataPoint {
  @Field(() => String, { description: 'A month (yyyy-mm), a day (yyyy-mm-dd) or a category name.' }) Label!: string;
  @Field(() => Int, { nullable: true, description: 'The record the label names (a membership type or level, a sales person\'s login), where there is one.' }) Id!: number | null;
  @Field(() => [Float]) Values!: number[];
}

@ObjectType({ description: 'A chart: the series names, the points (one value per series) and figures about the whole chart.' })
export class ChartData {
  @Field(() => [String], { description: 'The names of the series, in the order of each point\'s Values.' }) series!: string[];
  @Field(() => [ChartDataPoint], { description: 'The points, in axis order.' }) data!: ChartDataPoint[];
  @Field(() => [ScoreboardDatapoint], { description: 'Figures about the whole chart (totals, rates).' }) extraStats!: ScoreboardDatapoint[];
}

@ObjectType({ description: 'A quick-look tile: the figure, its heading, a line under it, and where the back office lists what it counts.' })
export class QuickLookData {
  @Field(() => String) Value!: string;
  @Field(() => String) Heading!: string;
  @Field(() => String, { nullable: true }) SubHeading!: string | null;
  @Field(() => String, { nullable: true, description: 'Names where the back office lists what the tile counts (a GraphQL query where one exists).' }) Action!: string | null;
}

@ObjectType('DashboardMonthCount', { description: 'A count for one month (yyyy-mm).' })
export class DashboardMonthCount {
  @Field(() => String) Month!: string;
  @Field(() => Int) Count!: number;
}

@ObjectType('DashboardMembershipTypeCount', { description: 'The memberships of one type running today.' })
export class DashboardMembershipTypeCount {
  @Field(() => Int) MembershipTypeId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Int) Count!: number;
}

@ObjectType({ description: 'The membership figures of the last 12 months (this month last), and today\'s memberships by type.' })
export class DashboardMembership {
  @Field(() => [DashboardMonthCount], { description: 'Memberships started in each month that were the contact\'s first of their type.' }) NewMemberships!: DashboardMonthCount[];
  @Field(() => [DashboardMonthCount], { description: 'Memberships started in each month that followed an earlier one of the contact in the same type.' }) RenewedMemberships!: DashboardMonthCount[];
  @Field(() => [DashboardMonthCount], { description: 'Memberships that ended in each month (before today) with no later membership of the contact in the same type.' }) DroppedMemberships!: DashboardMonthCount[];
  @Field(() => [DashboardMonthCount], { description: 'Memberships running on the month\'s last day (today, for this month).' }) TotalMemberships!: DashboardMonthCount[];
  @Field(() => [DashboardMembershipTypeCount], { description: 'Memberships running today, per membership type (every type of the tenant).' }) MembershipTypes!: DashboardMembershipTypeCount[];
}

@ObjectType({
  description: 'A .NET Task<dynamic> as the original service serialized it (CONVENTIONS.md): completed, not faulted, the statistics in Result.',
})
export class TaskDynamic {
  @Field(() => Boolean) ShouldNotifyDebuggerOfWaitCompletion!: boolean;
  @Field(() => Int, { description: 'A number for this answer (the .NET task id); it means nothing beyond it.' }) Id!: number;
  @Field(() => String, { nullable: true }) CurrentId!: string | null;
  @Field(() => String, { nullable: true }) Exception!: string | null;
  @Field(() => String, { description: 'Always "RanToCompletion".' }) Status!: string;
  @Field(() => Boolean) IsCanceled!: boolean;
  @Field(() => Boolean) IsCompleted!: boolean;
  @Field(() => String) CreationOptions!: string;
  @Field(() => String, { nullable: true, description: 'REST key: System.IAsyncResult.AsyncWaitHandle.' }) System_IAsyncResult_AsyncWaitHandle!: string | null;
  @Field(() => String, { nullable: true }) AsyncState!: string | null;
  @Field(() => Boolean, { description: 'REST key: System.IAsyncResult.CompletedSynchronously.' }) System_IAsyncResult_CompletedSynchronously!: boolean;
  @Field(() => String, { nullable: true }) Factory!: string | null;
  @Field(() => String, { nullable: true }) CompletedTask!: string | null;
  @Field(() => Boolean) IsFaulted!: boolean;
  @Field(() => String, { nullable: true }) SavedStateForNextReplica!: string | null;
  @Field(() => String, { nullable: true }) SavedStateFromPreviousReplica!: string | null;
  @Field(() => String, { nullable: true }) HandedOverChildReplica!: string | null;
  @Field(() => [ScoreboardDatapoint], { description: 'The statistics, one named figure each.' }) Result!: ScoreboardDatapoint[];
}

// ---------------------------------------------------------------------------------------------
// Projects and sales opportunities: GraphQL only (not in the documents).

/** A real calendar day (yyyy-mm-dd): the services' own check, stated by the document. */
const ISO_DATE = CALENDAR_DAY;

@ObjectType({ description: 'GraphQL only. A staff project; the project widgets of the dashboard count these.' })
export class Project {
  @Field(() => Int) ProjectId!: number;
  @Field(() => String) Name!: string;
  @Field(() => String, { nullable: true }) Description!: string | null;
  @Field(() => String, { description: `One of ${PROJECT_STATUSES.join(', ')}.` }) Status!: string;
  @Field(() => String, { description: 'yyyy-mm-dd' }) StartDate!: string;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd' }) DueDate!: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; set exactly when Status is completed.' }) CompletedDate!: string | null;
  @Field(() => Int, { nullable: true, description: 'The responsible login.' }) ManagerLoginId!: number | null;
  @Field(() => Int) AuditId!: number;
}

@InputType({ description: 'GraphQL only. A project to create or update.' })
export class ProjectInput {
  @Field(() => String) @IsString() @Length(1, 200) Name!: string;
  @Field(() => String, { nullable: true }) @IsOptional() @IsString() @Length(0, 4000) Description?: string | null;
  @Field(() => String, { nullable: true, description: `One of ${PROJECT_STATUSES.join(', ')}; planned when absent.` }) @IsOptional() @IsIn(PROJECT_STATUSES) Status?: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; today when absent.' }) @IsOptional() @Matches(ISO_DATE) StartDate?: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd, not before StartDate.' }) @IsOptional() @Matches(ISO_DATE) DueDate?: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; only with Status completed (today when absent then).' }) @IsOptional() @Matches(ISO_DATE) CompletedDate?: string | null;
  @Field(() => Int, { nullable: true, description: 'A login of the tenant.' }) @IsOptional() @IsInt() @Min(1) @Max(2147483647) ManagerLoginId?: number | null;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one is 409.' }) AuditId?: number | null;
}

@ObjectType({ description: 'GraphQL only. A sales opportunity; the sales widgets of the dashboard count these.' })
export class SalesOpportunity {
  @Field(() => Int) SalesOpportunityId!: number;
  @Field(() => String) Name!: string;
  @Field(() => Int, { nullable: true, description: 'The prospect.' }) ContactId!: number | null;
  @Field(() => Int, { nullable: true, description: 'The sales person (a login).' }) SalesPersonLoginId!: number | null;
  @Field(() => String, { description: `One of ${SALES_STAGES.join(', ')}.` }) Stage!: string;
  @Field(() => Float, { description: 'Exact to the cent.' }) Amount!: number;
  @Field(() => String, { description: 'yyyy-mm-dd' }) OpenedDate!: string;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; set exactly when the Stage is won or lost.' }) ClosedDate!: string | null;
  @Field(() => Int) AuditId!: number;
}

@InputType({ description: 'GraphQL only. A sales opportunity to create or update.' })
export class SalesOpportunityInput {
  @Field(() => String) @IsString() @Length(1, 200) Name!: string;
  @Field(() => Int, { nullable: true, description: 'A contact of the tenant.' }) @IsOptional() @IsInt() @Min(1) @Max(2147483647) ContactId?: number | null;
  @Field(() => Int, { nullable: true, description: 'A login of the tenant.' }) @IsOptional() @IsInt() @Min(1) @Max(2147483647) SalesPersonLoginId?: number | null;
  @Field(() => String, { nullable: true, description: `One of ${SALES_STAGES.join(', ')}; lead when absent.` }) @IsOptional() @IsIn(SALES_STAGES) Stage?: string | null;
  @Field(() => Float, { description: 'At most two decimals, not negative.' }) Amount!: number;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd; today when absent.' }) @IsOptional() @Matches(ISO_DATE) OpenedDate?: string | null;
  @Field(() => String, { nullable: true, description: 'yyyy-mm-dd, not before OpenedDate; only with Stage won or lost (today when absent then).' }) @IsOptional() @Matches(ISO_DATE) ClosedDate?: string | null;
  @Field(() => Int, { nullable: true, description: 'The version read; a stale one is 409.' }) AuditId?: number | null;
}
