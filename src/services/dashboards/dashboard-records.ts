import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { calendarDay, monthStart, todayUtc } from '../../core/dates.js';
import { BadInput } from '../../core/errors.js';
import { idOf } from '../../core/data/lean-read.js';
import { listQuery, defineList } from '../../core/data/list-query.js';
import { parseMoney, toMoneyNumber, toMoneyString } from '../../core/money.js';
import { deleteRecord, readOr404, saveRecord } from '../../core/data/records.js';
import { Contact } from '../../entities/contact.js';
import { DashboardProject, DashboardSalesOpportunity, type ProjectStatus, type SalesStage } from '../../entities/dashboards.js';
import { Event, EventRegistration, EventRegistrationOrder, EventRegistrationType } from '../../entities/event.js';
import { Login } from '../../entities/login.js';
import { Membership, MembershipType } from '../../entities/membership.js';
import type { Tenant } from '../../entities/tenant.js';
import type { ListOptionsInput } from '../../schema/common.js';
import type { Project, ProjectInput, SalesOpportunity, SalesOpportunityInput } from '../../schema/dashboards.js';

/*
 * Projects and sales opportunities: the records the dashboard's project and sales widgets count.
 * The documents describe the widgets only, so staff manage these through GraphQL (create-or-update
 * with AuditId, delete with an optional AuditId). Rules: a completion date exactly when a project
 * is completed, a closing date exactly when an opportunity is won or lost (today when not given),
 * never before the start; the manager, sales person and prospect must be the tenant's own.
 */

const PROJECT_NOUN = 'The project';
const OPPORTUNITY_NOUN = 'The sales opportunity';
const PROJECT_FIELDS = ['id', 'name', 'description', 'status', 'startDate', 'dueDate', 'completedDate', 'manager', 'auditId'] as const;
const OPPORTUNITY_FIELDS = ['id', 'name', 'contact', 'salesPerson', 'stage', 'amount', 'openedDate', 'closedDate', 'auditId'] as const;

const projectList = defineList(DashboardProject, {
  operations: ['Query.projects'],
  orderBy: { Name: 'name', ProjectId: 'id', Status: 'status', StartDate: 'startDate', DueDate: 'dueDate', CompletedDate: 'completedDate' },
  defaultOrder: 'StartDate desc',
  search: ['name', 'description'],
  dates: 'startDate',
}, 'many');

const opportunityList = defineList(DashboardSalesOpportunity, {
  operations: ['Query.salesOpportunities'],
  orderBy: { Name: 'name', SalesOpportunityId: 'id', Stage: 'stage', Amount: 'amount', OpenedDate: 'openedDate', ClosedDate: 'closedDate' },
  defaultOrder: 'OpenedDate desc',
  search: ['name'],
  dates: 'openedDate',
}, 'many');

export async function listProjects(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<Project[]> {
  const { rows } = await listQuery(ctx, DashboardProject, projectList, options, { fields: PROJECT_FIELDS });
  return rows.map(toProject);
}

export async function getProject(ctx: RequestContext, projectId: number): Promise<Project> {
  return toProject(await readOr404(ctx, DashboardProject, PROJECT_FIELDS, projectId, PROJECT_NOUN));
}

export async function saveProject(ctx: RequestContext, projectId: number, input: ProjectInput): Promise<Project> {
  const name = input.Name.trim();
  if (!name) throw BadInput.field('Name', 'must not be empty');
  const status = (input.Status ?? 'planned') as ProjectStatus;
  const startDate = input.StartDate ? calendarDay(input.StartDate, 'StartDate') : todayUtc();
  const dueDate = input.DueDate ? calendarDay(input.DueDate, 'DueDate') : null;
  if (dueDate && dueDate < startDate) throw BadInput.field('DueDate', 'must not be before StartDate');
  const completedDate = closingDay(status === 'completed', input.CompletedDate, startDate, 'CompletedDate', 'Status is completed');
  if (input.ManagerLoginId) await readOr404(ctx, Login, ['id'], input.ManagerLoginId, 'The manager login');
  const fields = { name, description: input.Description?.trim() || null, status, startDate, dueDate, completedDate, manager: input.ManagerLoginId ?? null };
  const saved = await saveRecord(ctx, DashboardProject, { id: projectId, auditId: input.AuditId }, fields, PROJECT_NOUN);
  return toProject(saved);
}

export function deleteProject(ctx: RequestContext, projectId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, DashboardProject, projectId, auditId, PROJECT_NOUN);
}

export async function listSalesOpportunities(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<SalesOpportunity[]> {
  const { rows } = await listQuery(ctx, DashboardSalesOpportunity, opportunityList, options, { fields: OPPORTUNITY_FIELDS });
  return rows.map(toOpportunity);
}

export async function getSalesOpportunity(ctx: RequestContext, salesOpportunityId: number): Promise<SalesOpportunity> {
  return toOpportunity(await readOr404(ctx, DashboardSalesOpportunity, OPPORTUNITY_FIELDS, salesOpportunityId, OPPORTUNITY_NOUN));
}

export async function saveSalesOpportunity(ctx: RequestContext, salesOpportunityId: number, input: SalesOpportunityInput): Promise<SalesOpportunity> {
  const name = input.Name.trim();
  if (!name) throw BadInput.field('Name', 'must not be empty');
  const stage = (input.Stage ?? 'lead') as SalesStage;
  const amount = toMoneyString(parseMoney(input.Amount, 'Amount'));
  const openedDate = input.OpenedDate ? calendarDay(input.OpenedDate, 'OpenedDate') : todayUtc();
  const closedDate = closingDay(stage === 'won' || stage === 'lost', input.ClosedDate, openedDate, 'ClosedDate', 'Stage is won or lost');
  if (input.ContactId) await readOr404(ctx, Contact, ['id'], input.ContactId, 'The contact');
  if (input.SalesPersonLoginId) await readOr404(ctx, Login, ['id'], input.SalesPersonLoginId, 'The sales person login');
  const fields = { name, stage, amount, openedDate, closedDate, contact: input.ContactId ?? null, salesPerson: input.SalesPersonLoginId ?? null };
  const saved = await saveRecord(ctx, DashboardSalesOpportunity, { id: salesOpportunityId, auditId: input.AuditId }, fields, OPPORTUNITY_NOUN);
  return toOpportunity(saved);
}

export function deleteSalesOpportunity(ctx: RequestContext, salesOpportunityId: number, auditId: number | null | undefined): Promise<number> {
  return deleteRecord(ctx, DashboardSalesOpportunity, salesOpportunityId, auditId, OPPORTUNITY_NOUN);
}

/** A closing day (completion, won or lost): required-or-today when `closed`, refused otherwise, never before `from`. */
function closingDay(closed: boolean, given: string | null | undefined, from: string, field: string, rule: string): string | null {
  if (!closed) {
    if (given) throw BadInput.field(field, `is only set when ${rule}`);
    return null;
  }
  const day = given ? calendarDay(given, field) : todayUtc();
  if (day < from) throw BadInput.field(field, 'must not be before the start');
  return day;
}

type ProjectRow = Pick<DashboardProject, (typeof PROJECT_FIELDS)[number]>;
type OpportunityRow = Pick<DashboardSalesOpportunity, (typeof OPPORTUNITY_FIELDS)[number]>;

function toProject(row: ProjectRow): Project {
  return {
    ProjectId: row.id, Name: row.name, Description: row.description, Status: row.status, StartDate: row.startDate, DueDate: row.dueDate,
    CompletedDate: row.completedDate, ManagerLoginId: idOf(row.manager), AuditId: row.auditId,
  };
}

function toOpportunity(row: OpportunityRow): SalesOpportunity {
  return {
    SalesOpportunityId: row.id, Name: row.name, ContactId: idOf(row.contact), SalesPersonLoginId: idOf(row.salesPerson), Stage: row.stage,
    Amount: toMoneyNumber(row.amount), OpenedDate: row.openedDate, ClosedDate: row.closedDate, AuditId: row.auditId,
  };
}

/**
 * Demo: a membership type with members (new, renewed and dropped ones), an event with an attendee,
 * projects in several states and sales opportunities at several stages, so every dashboard widget has something to count.
 */
export async function seedDashboards(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const today = todayUtc();
  const thisMonth = monthStart(today);
  const lastMonth = monthStart(today, -1);
  const yearAgo = monthStart(today, -13);
  const type = em.create(MembershipType, { tenant, name: `Dashboard members ${marker}`, description: `Dashboard ${marker}` });
  const people = ['Nora', 'Rene', 'Dora'].map((firstName) => em.create(Contact, { tenant, kind: 'person', firstName, lastName: `Dashboard ${marker}` }));
  const [nora, rene, dora] = people;
  em.create(Membership, { tenant, contact: nora, membershipType: type, startDate: thisMonth, status: 'active' });
  em.create(Membership, { tenant, contact: rene, membershipType: type, startDate: yearAgo, endDate: monthStart(today, -1), status: 'lapsed' });
  em.create(Membership, { tenant, contact: rene, membershipType: type, startDate: lastMonth, status: 'active' });
  em.create(Membership, { tenant, contact: dora, membershipType: type, startDate: yearAgo, endDate: lastMonth, status: 'lapsed' });
  em.create(Membership, { tenant, contact: dora, membershipType: type, startDate: today, status: 'pending' });
  em.create(DashboardProject, { tenant, name: `Website ${marker}`, description: `Demo ${marker}`, status: 'active', startDate: thisMonth, dueDate: monthStart(today, 2) });
  em.create(DashboardProject, { tenant, name: `Gala ${marker}`, status: 'completed', startDate: lastMonth, completedDate: today });
  em.create(DashboardProject, { tenant, name: `Survey ${marker}`, status: 'planned', startDate: today });
  // An upcoming event with one attendee, for the event widgets.
  const startsAt = new Date(`${monthStart(today, 1)}T18:00:00Z`);
  const event = em.create(Event, { tenant, name: `Gala ${marker}`, description: `Demo ${marker}`, startsAt, endsAt: new Date(startsAt.getTime() + 3 * 3600_000), status: 'open', capacity: 100 });
  const registrationType = em.create(EventRegistrationType, { tenant, event, name: `Member ${marker}`, price: '50.00' });
  const order = em.create(EventRegistrationOrder, { tenant, event, billingContact: nora, idempotencyKey: 'dashboards-demo', total: '50.00' });
  em.create(EventRegistration, { tenant, event, order, contact: nora, registrationType, amount: '50.00' });
  // The tenant's first login, if it has one yet, works the demo opportunities.
  const salesPerson = await em.findOne(Login, { tenant }, { filters: false, orderBy: { id: 'asc' } });
  const stages: [SalesStage, string][] = [['lead', '500.00'], ['proposal', '2500.00'], ['won', '1200.50'], ['lost', '800.00']];
  for (const [stage, amount] of stages) {
    const closed = stage === 'won' || stage === 'lost';
    em.create(DashboardSalesOpportunity, {
      tenant, name: `Sponsorship ${stage} ${marker}`, contact: nora, salesPerson, stage, amount, openedDate: lastMonth, closedDate: closed ? today : null,
    });
  }
  await em.flush();
}
