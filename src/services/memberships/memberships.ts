import { LockMode } from '@mikro-orm/core';
import { emitWebhookEvent } from '../webhooks/events.js';
import type { RequestContext } from '../../core/context.js';
import { addDays, calendarDay, todayUtc } from '../../core/dates.js';
import { BadInput, Conflict, NotFound, staleAuditId } from '../../core/errors.js';
import { allOf, idOf, leanRows } from '../../core/data/lean-read.js';
import { defineList, listQuery, parseListOptions } from '../../core/data/list-query.js';
import { assertCurrentVersion, findOr404, inTransaction, readOr404 } from '../../core/data/records.js';
import { tenantIs, tenantSql } from '../../core/data/tenant-sql.js';
import { money } from '../../core/money.js';
import { Invoice, SaleableItem } from '../../entities/commerce.js';
import { Contact, displayName, type ContactKind } from '../../entities/contact.js';
import { Membership, MembershipLevel, MembershipType, type MembershipStatus } from '../../entities/membership.js';
import { listResult, lookupChoices, type ListResultOf } from '../../schema/common.js';
import {
  MEMBERSHIP_STATUSES, type MembershipCancelInput, type MembershipCriteria, type MembershipFilterInput, type MembershipInput, type MembershipRenewInput, type MembershipView,
} from '../../schema/memberships.js';
import { createInvoice, voidInvoice } from '../commerce/invoices.js';
import { normalizeCustomFieldValues } from '../custom-fields/custom-fields.js';
import { customFieldCondition } from '../custom-fields/filters.js';
import type { PaidInvoice } from '../commerce/paid-invoices.js';
import { inGoodStandingOn, inGoodStandingSql } from './good-standing.js';
import { termEnd } from './terms.js';

/*
 * Memberships: one row per term (CORE-DECISIONS). Decided where the issue is silent:
 * - Enrolling (saveMembership, id 0) makes a pending term unless the caller sends Status
 *   "active" (staff enrolling a member outright). StartDate defaults to today, EndDate to the
 *   type's duration and period, JoinDate to the join date of the contact's term of the type that
 *   ends the day before (a renewal), else the start. An inactive type takes no new members (409).
 * - BillIt raises an invoice for the term (sourceKey `membership:<id>`, so a term is billed once)
 *   at its level's price, else the type's, else the type's saleable item's; a term without a
 *   price cannot be billed (400). A billed term stays pending; the payment that settles the
 *   invoice makes it active (paidInvoiceSources, in the payment's transaction).
 * - Status moves only by activate (pending → active), renew (a new term), cancel, and the lapse
 *   job (active → lapsed). Staff may set any status through saveMembership only with
 *   StatusOverride true; the lapse job leaves such a term alone until StatusOverride false
 *   clears the flag (the status stays as it is, and the job manages it again).
 * - A term keeps its contact and type; its level and dates may change.
 * - Renewing: only the newest term of the contact in the type, active or lapsed, with an end
 *   date. The new term starts the day after the end (also for a lapsed term: the membership is
 *   continuous), keeps the level and join date; active at once, or pending when billed.
 * - Cancelling: terminal. The effective date (the first day no longer covered) is today or
 *   earlier; the end date becomes the day before (never later than it was, never before the
 *   start − 1); a pending term is withdrawn (end = start − 1: it never ran, so the dashboards
 *   count it neither new nor dropped); an unpaid invoice of the term is voided.
 * - Activate, renew and cancel each claim the term with one conditional UPDATE at the AuditId
 *   given: of two staff acting on the same version at once exactly one succeeds, the other 409.
 */

const NOUN = 'The membership';
export const MEMBERSHIP_SOURCE = 'membership';
const sourceKeyOf = (membershipId: number) => `${MEMBERSHIP_SOURCE}:${membershipId}`;

const membershipList = defineList(Membership, {
  operations: ['Query.memberships'],
  orderBy: { StartDate: 'startDate', EndDate: 'endDate', MembershipId: 'id' },
  defaultOrder: 'StartDate desc',
  search: ['contact.firstName', 'contact.lastName', 'contact.name', 'contact.email'],
}, 'many');

// ---------------------------------------------------------------------------------------------
// Reads

export async function listMemberships(ctx: RequestContext, filter: MembershipFilterInput | null | undefined): Promise<ListResultOf<MembershipView, MembershipCriteria>> {
  const list = parseListOptions(filter, membershipList, '');
  const goodStandingDay = filter?.InGoodStandingOn ? calendarDay(filter.InGoodStandingOn, 'InGoodStandingOn') : null;
  const where = allOf<Membership>(
    filter?.ContactId ? { contact: filter.ContactId } : null,
    filter?.MembershipTypeId ? { membershipType: filter.MembershipTypeId } : null,
    filter?.MembershipLevelId ? { membershipLevel: filter.MembershipLevelId } : null,
    filter?.Status ? { status: filter.Status as MembershipStatus } : null,
    goodStandingDay ? inGoodStandingOn(goodStandingDay) : null,
    await customFieldCondition(ctx, ['membership'], filter?.CustomFieldFilters, () => null),
  );
  const { rows, total } = await listQuery(ctx, Membership, membershipList, list, { fields: ['id'], where, total: true });
  return listResult<MembershipView, MembershipCriteria>({
    criteria: {
      ContactId: filter?.ContactId ?? null, MembershipTypeId: filter?.MembershipTypeId ?? null, MembershipLevelId: filter?.MembershipLevelId ?? null,
      Status: filter?.Status ?? null, InGoodStandingOn: goodStandingDay,
    },
    criteriaItems: lookupChoices(MEMBERSHIP_STATUSES.map((status, index) => ({ id: index + 1, name: status }))),
    total: total ?? 0,
    results: await membershipViews(ctx, rows.map((row) => row.id)),
  });
}

export async function getMembership(ctx: RequestContext, membershipId: number): Promise<MembershipView> {
  const [view] = await membershipViews(ctx, [membershipId]);
  if (!view) throw new NotFound(NOUN);
  return view;
}

interface ViewRow {
  id: number; audit_id: number; contact_id: number; kind: ContactKind; name: string | null; first_name: string | null; last_name: string | null;
  membership_type_id: number; type_name: string; membership_level_id: number | null; level_name: string | null; join_date: string; start_date: string;
  end_date: string | null; good_through: string | null; status: string; status_override: boolean; cancel_reason: string | null; in_good_standing: boolean;
  invoice_id: number | null; custom_fields: Record<string, unknown>;
}

/** The terms with these ids as the API shows them, in that order: one statement whatever their number. */
async function membershipViews(ctx: RequestContext, ids: number[]): Promise<MembershipView[]> {
  if (ids.length === 0) return [];
  const rows = await tenantSql(ctx).all<ViewRow>(
    `select m.id, m.audit_id, m.contact_id, c.kind, c.name, c.first_name, c.last_name, m.membership_type_id, t.name as type_name, m.membership_level_id,
            l.name as level_name, m.join_date::text, m.start_date::text, m.end_date::text, m.good_through::text, m.status, m.status_override, m.cancel_reason,
            ${inGoodStandingSql('m', todayUtc())} as in_good_standing,
            (select i.id from invoice i where ${tenantIs('i')} and i.source_key = 'membership:' || m.id) as invoice_id, m.custom_fields
       from membership m join contact c on c.id = m.contact_id join membership_type t on t.id = m.membership_type_id
       left join membership_level l on l.id = m.membership_level_id
      where ${tenantIs('m')} and m.id in (${ids.map(() => '?').join(', ')})`, ids);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{
      MembershipId: row.id, AuditId: row.audit_id, ContactId: row.contact_id,
      ContactName: displayName({ kind: row.kind, name: row.name, firstName: row.first_name, lastName: row.last_name }),
      MembershipTypeId: row.membership_type_id, MembershipTypeName: row.type_name, MembershipLevelId: row.membership_level_id, MembershipLevelName: row.level_name,
      JoinDate: row.join_date, StartDate: row.start_date, EndDate: row.end_date, GoodThrough: row.good_through, Status: row.status,
      StatusOverride: row.status_override, InGoodStanding: row.in_good_standing, CancelReason: row.cancel_reason, InvoiceId: row.invoice_id,
      CustomFields: row.custom_fields,
    }] : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Enrol and change

/** Enrols (id 0) or changes a term; answers it as read back. */
export async function saveMembership(ctx: RequestContext, membershipId: number, input: MembershipInput): Promise<MembershipView> {
  const id = await inTransaction(ctx, async () => {
    // Shared lock: a concurrent save of the type (which may delete levels) or its delete waits for this enrolment, and then sees it.
    const type = await ctx.em.findOne(MembershipType, { id: input.MembershipTypeId }, { lockMode: LockMode.PESSIMISTIC_READ });
    if (!type) throw new NotFound('The membership type');
    const levelId = input.MembershipLevelId ?? null;
    if (levelId) {
      const [level] = await leanRows(ctx.reader, MembershipLevel, { fields: ['id'], where: { id: levelId, membershipType: type.id }, limit: 1 });
      if (!level) throw BadInput.field('MembershipLevelId', 'is not a level of the membership type');
    }
    const term = membershipId ? await changeTerm(ctx, membershipId, input, levelId) : await enrol(ctx, input, type, levelId);
    if (input.BillIt) await billTerm(ctx, term);
    if (!membershipId) await emitMembershipEvent(ctx, 'membership.created', factsOf(term));
    return term.id;
  });
  return getMembership(ctx, id);
}

async function enrol(ctx: RequestContext, input: MembershipInput, type: Pick<MembershipType, 'id' | 'isActive' | 'durationMonths' | 'periodType' | 'fixedStartMonth' | 'fixedStartDay'>, levelId: number | null): Promise<Membership> {
  if (!input.ContactId) throw BadInput.field('ContactId', 'is required to enrol');
  await readOr404(ctx, Contact, ['id'], input.ContactId, 'The contact');
  if (!type.isActive) throw new Conflict('The membership type is inactive: it takes no new members.', [{ field: 'MembershipTypeId', message: 'is inactive' }]);
  const startDate = input.StartDate ? calendarDay(input.StartDate, 'StartDate') : todayUtc();
  const endDate = input.EndDate ? calendarDay(input.EndDate, 'EndDate') : checkedEnd(termEnd(type, startDate));
  if (endDate !== null && endDate < startDate) throw BadInput.field('EndDate', 'must not be before StartDate');
  const status = (input.Status ?? 'pending') as MembershipStatus;
  if (status !== 'pending' && status !== 'active' && !input.StatusOverride) throw BadInput.field('Status', 'a new membership is pending or active (any other status needs StatusOverride true)');
  if (input.BillIt && status !== 'pending') throw BadInput.field('BillIt', 'a billed membership starts pending and turns active when its invoice is paid');
  const customFields = await normalizeCustomFieldValues(ctx, 'membership', input.CustomFields);
  const term = ctx.em.create(Membership, {
    tenant: ctx.tenantId, contact: input.ContactId, membershipType: type.id, membershipLevel: levelId, startDate, endDate, status,
    joinDate: input.JoinDate ? calendarDay(input.JoinDate, 'JoinDate') : null, statusOverride: input.StatusOverride ?? false, customFields,
  });
  await ctx.em.persist(term).flush();
  return term;
}

async function changeTerm(ctx: RequestContext, membershipId: number, input: MembershipInput, levelId: number | null): Promise<Membership> {
  const term = await findOr404(ctx, Membership, membershipId, NOUN);
  assertCurrentVersion(term, input.AuditId);
  if (idOf(term.membershipType) !== input.MembershipTypeId) throw BadInput.field('MembershipTypeId', 'a term keeps its type (renew, or enrol again)');
  if (input.ContactId && idOf(term.contact) !== input.ContactId) throw BadInput.field('ContactId', 'a term keeps its contact');
  const status = (input.Status ?? term.status) as MembershipStatus;
  if (status !== term.status && !input.StatusOverride) {
    throw BadInput.field('Status', 'changes by activate, renew, cancel or the lapse job; set it by hand only with StatusOverride true');
  }
  if (term.status === 'cancelled' && !input.StatusOverride) throw new Conflict('A cancelled membership is final; enrol the contact again instead.');
  const startDate = input.StartDate ? calendarDay(input.StartDate, 'StartDate') : term.startDate;
  const endDate = input.EndDate ? calendarDay(input.EndDate, 'EndDate') : term.endDate;
  if (endDate !== null && endDate < addDays(startDate, -1)) throw BadInput.field('EndDate', 'must not be before StartDate');
  // CustomFields left out keeps the values; keys sent replace theirs (services/custom-fields).
  const customFields = await normalizeCustomFieldValues(ctx, 'membership', input.CustomFields, term.customFields);
  ctx.em.assign(term, {
    membershipLevel: levelId, startDate, endDate, status, statusOverride: input.StatusOverride ?? term.statusOverride, customFields,
    ...(input.JoinDate ? { joinDate: calendarDay(input.JoinDate, 'JoinDate') } : {}), updatedAt: new Date(),
  });
  await ctx.em.flush();
  return term;
}

/** A computed end beyond the year 9999 is refused (the dates a client may send end there). */
function checkedEnd(end: string | null): string | null {
  if (end !== null && end > '9999-12-31') throw BadInput.field('StartDate', 'is too late: the term would end after the year 9999');
  return end;
}

/** Raises the invoice for a pending term at its price (once: the sourceKey). */
async function billTerm(ctx: RequestContext, term: Pick<Membership, 'id' | 'contact' | 'membershipType' | 'membershipLevel' | 'status' | 'startDate' | 'endDate'>): Promise<void> {
  if (term.status !== 'pending') throw BadInput.field('BillIt', 'only a pending membership is billed (it turns active when paid)');
  const [type] = await leanRows(ctx.reader, MembershipType, { fields: ['name', 'price', 'saleableItem'], where: { id: idOf(term.membershipType) }, limit: 1 });
  const levelId = idOf(term.membershipLevel);
  const [level] = levelId ? await leanRows(ctx.reader, MembershipLevel, { fields: ['name', 'price'], where: { id: levelId }, limit: 1 }) : [];
  const itemId = idOf(type.saleableItem);
  const [item] = itemId ? await leanRows(ctx.reader, SaleableItem, { fields: ['price'], where: { id: itemId }, limit: 1 }) : [];
  const price = level?.price ?? type.price ?? item?.price ?? null;
  if (price === null || money(price).isZero()) throw BadInput.field('BillIt', 'the membership type and level have no price to bill; activate the membership instead');
  await createInvoice(ctx, {
    contactId: idOf(term.contact), source: 'memberships', sourceKey: sourceKeyOf(term.id),
    lines: [{
      saleableItemId: itemId, quantity: 1, unitPrice: price,
      description: `${type.name}${level ? ` (${level.name})` : ''} membership ${term.startDate} – ${term.endDate ?? 'open-ended'}`,
    }],
  });
}

// ---------------------------------------------------------------------------------------------
// Lifecycle

/** Staff approval: pending → active. */
export async function activateMembership(ctx: RequestContext, membershipId: number, auditId: number): Promise<MembershipView> {
  await claimTerm(ctx, membershipId, auditId, ['pending'], `status = 'active'`, [], 'Only a pending membership can be activated.');
  return getMembership(ctx, membershipId);
}

/** A new term following this one (see the rules above); answers the new term. */
export async function renewMembership(ctx: RequestContext, membershipId: number, auditId: number, input: MembershipRenewInput | null | undefined): Promise<MembershipView> {
  const renewalId = await inTransaction(ctx, async () => {
    // Claimed first: a concurrent renewal of the same version waits here, then finds the version moved on (409).
    await claimTerm(ctx, membershipId, auditId, ['active', 'lapsed'], '', [], 'Only an active or lapsed membership can be renewed.');
    const term = await findOr404(ctx, Membership, membershipId, NOUN);
    if (term.endDate === null) throw new Conflict('An open-ended membership never needs renewing.');
    const [later] = await leanRows(ctx.reader, Membership, {
      fields: ['id'], where: { contact: idOf(term.contact), membershipType: idOf(term.membershipType), startDate: { $gt: term.startDate }, status: { $ne: 'cancelled' } }, limit: 1,
    });
    if (later) throw new Conflict(`The membership was renewed already (membership ${later.id}); renew the newest term.`);
    const [type] = await leanRows(ctx.reader, MembershipType, { fields: ['durationMonths', 'periodType', 'fixedStartMonth', 'fixedStartDay'], where: { id: idOf(term.membershipType) }, limit: 1 });
    const startDate = addDays(term.endDate, 1);
    const renewal = ctx.em.create(Membership, {
      tenant: ctx.tenantId, contact: idOf(term.contact), membershipType: idOf(term.membershipType), membershipLevel: idOf(term.membershipLevel),
      joinDate: term.joinDate, startDate, endDate: checkedEnd(termEnd(type, startDate)), status: input?.BillIt ? 'pending' : 'active',
      // The membership continues: the new term carries the values over as they are (a required field added since is asked at its next save).
      customFields: term.customFields,
    });
    await ctx.em.persist(renewal).flush();
    if (input?.BillIt) await billTerm(ctx, renewal);
    await emitMembershipEvent(ctx, 'membership.renewed', factsOf(renewal), { RenewedMembershipId: membershipId });
    return renewal.id;
  });
  return getMembership(ctx, renewalId);
}

/** Ends a term early (terminal); see the rules above. */
export async function cancelMembership(ctx: RequestContext, membershipId: number, auditId: number, input: MembershipCancelInput | null | undefined): Promise<MembershipView> {
  // Not after today: the input's rule (schema/memberships.ts); a later end is the term's EndDate.
  const effective = input?.EffectiveDate ? calendarDay(input.EffectiveDate, 'EffectiveDate') : todayUtc();
  await inTransaction(ctx, async () => {
    await claimTerm(ctx, membershipId, auditId, ['pending', 'active', 'lapsed'],
      `status = 'cancelled', cancel_reason = ?,
       end_date = case when m.status = 'pending' then m.start_date - 1 else greatest(m.start_date - 1, least(coalesce(m.end_date, ?::date - 1), ?::date - 1)) end`,
      [input?.Reason?.trim() || null, effective, effective], 'The membership is cancelled already.');
    const [invoice] = await leanRows(ctx.reader, Invoice, { fields: ['id'], where: { sourceKey: sourceKeyOf(membershipId) }, limit: 1 });
    // Unpaid: voided. Paid (in part): kept for staff to refund.
    if (invoice) await voidInvoice(ctx, invoice.id);
    await emitMembershipEvent(ctx, 'membership.cancelled', factsOf(await findOr404(ctx, Membership, membershipId, NOUN)));
  });
  return getMembership(ctx, membershipId);
}

/** What a membership webhook event says of its term (ARCHITECTURE.md, "Outbound webhooks"). */
export interface MembershipEventFacts {
  MembershipId: number;
  ContactId: number;
  MembershipTypeId: number;
  StartDate: string;
  EndDate: string | null;
  Status: MembershipStatus;
}

/** The webhook event of a term's change, with its facts (and `extra`, e.g. the term renewed). */
export function emitMembershipEvent(
  ctx: RequestContext, type: 'membership.created' | 'membership.renewed' | 'membership.cancelled' | 'membership.lapsed',
  facts: MembershipEventFacts, extra: Record<string, unknown> = {},
): Promise<void> {
  return emitWebhookEvent(ctx, type, { ...facts, ...extra });
}

function factsOf(term: Pick<Membership, 'id' | 'contact' | 'membershipType' | 'startDate' | 'endDate' | 'status'>): MembershipEventFacts {
  return { MembershipId: term.id, ContactId: idOf(term.contact), MembershipTypeId: idOf(term.membershipType), StartDate: term.startDate, EndDate: term.endDate, Status: term.status };
}

/**
 * One conditional UPDATE of the term at `auditId` in one of the `from` statuses, moving its
 * version on (and setting `set`, an SQL assignment list over alias `m`, when given). No row: 404,
 * 409 for another version, or 409 `refusal` for a status it may not leave.
 */
async function claimTerm(ctx: RequestContext, membershipId: number, auditId: number, from: MembershipStatus[], set: string, params: unknown[], refusal: string): Promise<void> {
  const claimed = await tenantSql(ctx).all<{ id: number }>(
    `update membership m set ${set ? `${set}, ` : ''}audit_id = m.audit_id + 1, updated_at = now()
      where m.id = ? and ${tenantIs('m')} and m.audit_id = ? and m.status in (${from.map(() => '?').join(', ')}) returning m.id`,
    [...params, membershipId, auditId, ...from]);
  if (claimed.length) return;
  const [row] = await leanRows(ctx.reader, Membership, { fields: ['auditId'], where: { id: membershipId }, limit: 1 });
  if (!row) throw new NotFound(NOUN);
  if (row.auditId !== auditId) throw staleAuditId();
  throw new Conflict(refusal);
}

/** `paidInvoiceSources.membership`: the invoice of a pending term is paid in full → the term is active (in the payment's transaction). */
export async function activatePaidTerm(ctx: RequestContext, _invoice: PaidInvoice, sourceId: string): Promise<void> {
  // A term cancelled (or activated by staff) before the payment stays as it is.
  await tenantSql(ctx).run(
    `update membership m set status = 'active', audit_id = m.audit_id + 1, updated_at = now() where m.id = ? and ${tenantIs('m')} and m.status = 'pending'`,
    [Number(sourceId)]);
}
