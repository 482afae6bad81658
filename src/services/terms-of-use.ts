import type { FilterQuery } from '@mikro-orm/core';
import sanitizeHtml from 'sanitize-html';
import type { RequestContext } from '../core/context.js';
import { assertCurrentVersion } from '../core/records.js';
import { BadInput, Conflict, Forbidden, NotFound } from '../core/errors.js';
import { leanRows } from '../core/lean-read.js';
import { escapeLike, MAX_PAGE_SIZE, parseListOptions, toFindOptions, type ListSpec } from '../core/list-query.js';
import { Contact, displayName } from '../entities/contact.js';
import {
  TermsOfUse, TermsOfUseText, termsNameKey, TermsUserResponse, type TermsLoginType, type UserLoginType,
} from '../entities/terms-of-use.js';
import { filterBaseOptions, listResult, type ListResultOf, type LookupChoiceInt, type PotentialDuplicateEntry } from '../schema/common.js';
import {
  type TermsOfUseAddEdit, type TermsOfUseAddEditInput, type TermsOfUseCollectionItem, type TermsOfUseView, type TermsUsersResponse,
  type TermsUsersResponseInput, type UserTermsAcceptanceCriteria, type UserTermsAcceptanceFilterInput,
} from '../schema/terms-of-use.js';

/*
 * Terms of use and their acceptance.
 *
 * - LoginType: "staff" terms govern the back office, "hub" terms the member hub. The newest
 *   (highest id) terms of a login type are its current terms: gdpr/backoffice and AboutMe show them.
 * - Versioning: every save that changes the text starts a new text revision; a response records
 *   the revision it answered, and only an acceptance of the current revision counts as agreeing
 *   (AboutMe asks again after the text changed). The text of every accepted revision is kept
 *   (terms_of_use_text); OriginalDescription is the most recently accepted one.
 * - Deleting hides the terms (soft delete); the responses stay as the record of consent.
 */

const termsList: ListSpec<TermsOfUse> = {
  orderBy: { Name: 'name', TermsOfUseId: 'id', LoginType: 'loginType' },
  defaultOrder: 'Name',
  search: ['name'],
};

const acceptanceList: ListSpec<TermsUserResponse> = {
  orderBy: {
    ActionDate: 'actionDate', TermUserResponseId: 'id', TermsOfUseId: 'termsOfUse', LoginId: 'login', ContactId: 'contact',
    IsAccepted: 'isAccepted', UserLoginTypeId: 'userLoginType',
  },
  defaultOrder: 'ActionDate desc',
  search: ['ipAddress', 'userAgent'],
};

const TERMS_FIELDS = ['id', 'name', 'description', 'loginType', 'auditId', 'revision'] as const;
const RESPONSE_FIELDS = [
  'id', 'tenant', 'termsOfUse', 'login', 'contact', 'userLoginType', 'isAccepted', 'actionDate', 'ipAddress', 'userAgent',
] as const;

type TermsRow = Pick<TermsOfUse, (typeof TERMS_FIELDS)[number]>;
type ResponseRow = Pick<TermsUserResponse, (typeof RESPONSE_FIELDS)[number]>;

/** Terms HTML as stored and served: sanitize-html's default allow-list (no scripts, styles or event handlers). */
export function sanitizeTermsHtml(html: string): string {
  return sanitizeHtml(html, { allowedAttributes: { ...sanitizeHtml.defaults.allowedAttributes, '*': ['class'] } }).trim();
}

// ---------------------------------------------------------------------------------------------
// Terms management (staff)
// ---------------------------------------------------------------------------------------------

export async function listTermsOfUse(ctx: RequestContext, options: string | null | undefined): Promise<TermsOfUseCollectionItem[]> {
  const { where, orderBy, limit, offset } = toFindOptions(parseListOptions(options, termsList), termsList);
  const rows = await leanRows(ctx.em, TermsOfUse, { fields: ['id', 'name'], where, orderBy, limit, offset });
  return rows.map(toCollectionItem);
}

export async function getTermsOfUse(ctx: RequestContext, termsOfUseId: number): Promise<TermsOfUseAddEdit> {
  const [terms] = await leanRows(ctx.em, TermsOfUse, { fields: [...TERMS_FIELDS], where: { id: termsOfUseId }, limit: 1 });
  if (!terms) throw new NotFound('The terms of use');
  return toAddEdit(terms, await lastAcceptedText(ctx, terms.id));
}

/** The tenant's current back-office terms; a blank model (TermsOfUseId 0) when it has none, ready to fill and save. */
export async function backOfficeTerms(ctx: RequestContext): Promise<TermsOfUseAddEdit> {
  const terms = (await currentTerms(ctx, ['staff'])).get('staff');
  if (!terms) {
    return { TermsOfUseId: 0, Name: null, Description: null, AuditId: 0, LoginType: 'staff', OriginalDescription: null, forceSave: false };
  }
  return toAddEdit(terms, await lastAcceptedText(ctx, terms.id));
}

export async function viewTermsOfUse(ctx: RequestContext, termsOfUseId: number): Promise<TermsOfUseView> {
  const [terms] = await leanRows(ctx.em, TermsOfUse, { fields: ['id', 'description'], where: { id: termsOfUseId }, limit: 1 });
  if (!terms) throw new NotFound('The terms of use');
  return { TermsOfUseId: terms.id, TermsDescription: terms.description };
}

/** Every terms of use as lookup choices: ExtraData is the LoginType, IsSelected marks the current terms of each login type. */
export async function termsLookup(ctx: RequestContext, loginType?: TermsLoginType): Promise<LookupChoiceInt[]> {
  const rows = await leanRows(ctx.em, TermsOfUse, {
    fields: ['id', 'name', 'loginType'],
    where: loginType ? { loginType } : {},
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    limit: MAX_PAGE_SIZE,
  });
  const newest = new Map<string, number>();
  for (const row of rows) newest.set(row.loginType, Math.max(newest.get(row.loginType) ?? 0, row.id));
  return rows.map((row, index) => ({
    Id: row.id, Name: row.name, ExtraData: row.loginType, CssColor: null, IsSelected: newest.get(row.loginType) === row.id, IsDeleted: false, Order: index,
  }));
}

/**
 * Create-or-update: path id 0 creates, an existing id updates, an unknown one is 404 (the body's
 * TermsOfUseId is ignored). A changed text starts a new text revision. Unless forceSave, a name
 * that another terms of the tenant already has is refused with 409 listing them.
 */
export async function saveTermsOfUse(ctx: RequestContext, termsOfUseId: number, input: TermsOfUseAddEditInput): Promise<TermsOfUseCollectionItem> {
  const name = input.Name.trim();
  const nameKey = termsNameKey(name);
  const description = sanitizeTermsHtml(input.Description);
  if (!description) throw BadInput.field('Description', 'must contain text after unsafe HTML is removed');
  const loginType = input.LoginType ? (input.LoginType.toLowerCase() as TermsLoginType) : null;

  const terms = termsOfUseId ? await findTerms(ctx, termsOfUseId) : null;
  if (terms) assertCurrentVersion(terms, input.AuditId);
  if (!input.forceSave && (!terms || terms.nameKey !== nameKey)) {
    const duplicates = await findDuplicates(ctx, nameKey, terms?.id ?? null);
    if (duplicates.length) throw duplicateConflict(duplicates);
  }
  let saved: TermsOfUse;
  if (terms) {
    if (description !== terms.description) terms.revision += 1;
    ctx.em.assign(terms, { name, nameKey, description, ...(loginType ? { loginType } : {}) });
    saved = terms;
  } else {
    saved = ctx.em.create(TermsOfUse, { tenant: ctx.tenantId, name, nameKey, description, loginType: loginType ?? 'staff' });
  }
  await ctx.em.persist(saved).flush();
  return toCollectionItem(saved);
}

/** Deletes (hides) terms of use if `auditId` is still their version; their responses are kept. Answers the id. */
export async function deleteTermsOfUse(ctx: RequestContext, termsOfUseId: number, auditId: number): Promise<number> {
  const terms = await findTerms(ctx, termsOfUseId);
  assertCurrentVersion(terms, auditId);
  terms.deletedAt = new Date();
  await ctx.em.flush();
  return termsOfUseId;
}

async function findTerms(ctx: RequestContext, termsOfUseId: number): Promise<TermsOfUse> {
  const terms = await ctx.em.findOne(TermsOfUse, { id: termsOfUseId });
  if (!terms) throw new NotFound('The terms of use');
  return terms;
}

async function findDuplicates(ctx: RequestContext, nameKey: string, exceptId: number | null): Promise<PotentialDuplicateEntry[]> {
  const rows = await leanRows(ctx.em, TermsOfUse, {
    fields: ['id', 'name', 'loginType'],
    where: { nameKey, ...(exceptId ? { id: { $ne: exceptId } } : {}) },
    orderBy: [{ id: 'asc' }],
    limit: 100,
  });
  return rows.map((row) => ({ Id: row.id, Name: row.name, Description: row.loginType }));
}

function duplicateConflict(duplicates: PotentialDuplicateEntry[]): Conflict {
  return new Conflict(
    'Terms of use with the same name exist in this tenant; send forceSave true to save anyway.',
    duplicates.map((duplicate) => ({ field: 'Name', message: `same name as TermsOfUseId ${duplicate.Id} ("${duplicate.Name}", ${duplicate.Description})` })),
  );
}

/** The newest (current) terms of each asked login type, in one statement. */
async function currentTerms(ctx: RequestContext, loginTypes: TermsLoginType[]): Promise<Map<string, TermsRow>> {
  const qb = ctx.em.createQueryBuilder(TermsOfUse) as unknown as DistinctQuery;
  qb.select([...TERMS_FIELDS]).distinctOn(['loginType']).where({ loginType: { $in: loginTypes } }).orderBy([{ loginType: 'asc' }, { id: 'desc' }]);
  await qb.applyFilters();
  const rows = (await qb.execute('all', { mapResults: true })) as TermsRow[];
  return new Map(rows.map((row) => [row.loginType, row]));
}

/** The text most recently accepted of some terms (null while nobody accepted them). */
async function lastAcceptedText(ctx: RequestContext, termsOfUseId: number): Promise<string | null> {
  const [text] = await leanRows(ctx.em, TermsOfUseText, { fields: ['text'], where: { termsOfUse: termsOfUseId }, orderBy: [{ revision: 'desc' }], limit: 1 });
  return text?.text ?? null;
}

// ---------------------------------------------------------------------------------------------
// Responses (any signed-in login) and the acceptance lists (staff)
// ---------------------------------------------------------------------------------------------

/**
 * Records the caller accepting or declining terms of use, with the time, IP address and browser
 * taken from the request. Back-office (staff) terms can be answered by staff logins only (403).
 * Accepting keeps the accepted text (the revision's snapshot) for later edits.
 */
export async function takeAction(ctx: RequestContext, input: TermsUsersResponseInput): Promise<TermsUsersResponse> {
  const caller = ctx.requireCaller();
  const [terms] = await leanRows(ctx.em, TermsOfUse, { fields: ['id', 'loginType', 'revision', 'description'], where: { id: input.TermsOfUseId }, limit: 1 });
  if (!terms) throw new NotFound('The terms of use');
  const isStaff = caller.roles.includes('staff');
  if (terms.loginType === 'staff' && !isStaff) throw new Forbidden('Back-office terms of use can be answered by staff logins only.');
  if (input.IsAccepted) {
    // The text and revision come from the same row read, so the snapshot is the text accepted.
    const insert = ctx.em.createQueryBuilder(TermsOfUseText) as unknown as SnapshotInsert;
    await insert.insert({ tenant: caller.tenantId, termsOfUse: terms.id, revision: terms.revision, text: terms.description }).onConflict(['termsOfUse', 'revision']).ignore().execute();
  }
  const response = ctx.em.create(TermsUserResponse, {
    tenant: caller.tenantId,
    termsOfUse: terms.id,
    revision: terms.revision,
    termsLoginType: terms.loginType,
    login: caller.loginId,
    contact: caller.contactId,
    userLoginType: (isStaff ? 'staff' : 'member') satisfies UserLoginType,
    isAccepted: input.IsAccepted,
    actionDate: new Date(),
    ipAddress: ctx.request.ip.slice(0, 64),
    userAgent: ctx.request.userAgent?.slice(0, 512) || null,
  });
  await ctx.em.persist(response).flush();
  return toResponse({
    id: response.id, tenant: caller.tenantId, termsOfUse: terms.id, login: caller.loginId, contact: caller.contactId,
    userLoginType: response.userLoginType, isAccepted: response.isAccepted, actionDate: response.actionDate,
    ipAddress: response.ipAddress, userAgent: response.userAgent,
  });
}

/** The acceptance list of one login type from `options` (GET): FilterBase fields plus LoginTypes and Criteria. */
export function acceptancesFromOptions(ctx: RequestContext, loginType: TermsLoginType, options: string | null | undefined) {
  const raw = optionsObject(options);
  return listAcceptances(ctx, loginType, raw, {
    loginTypes: loginTypesOf(raw.LoginTypes, 'options.LoginTypes'),
    criteria: criteriaOf(raw.Criteria, 'options.Criteria'),
    field: 'options',
  });
}

/** The acceptance list of one login type from a UserTermsAcceptanceFilter body (POST); its TenantId is never read. */
export function acceptancesFromFilter(ctx: RequestContext, loginType: TermsLoginType, filter: UserTermsAcceptanceFilterInput | null | undefined) {
  return listAcceptances(ctx, loginType, filterBaseOptions(filter), {
    loginTypes: (filter?.LoginTypes ?? []).map((type) => type.toLowerCase() as UserLoginType),
    criteria: filter?.Criteria ? criteriaOf({ ...filter.Criteria }, 'Criteria') : null,
    field: '',
  });
}

interface AcceptanceQuery {
  loginTypes: UserLoginType[];
  criteria: UserTermsAcceptanceCriteria | null;
  field: string;
}

/**
 * Every recorded response to terms of `loginType`, one page of them, with the count of all that
 * match. Statements per request are fixed: page, count, the terms choices, and the contacts of
 * the page (one batched load).
 */
async function listAcceptances(
  ctx: RequestContext, loginType: TermsLoginType, raw: Record<string, unknown>, query: AcceptanceQuery,
): Promise<ListResultOf<TermsUsersResponse, UserTermsAcceptanceCriteria>> {
  const list = parseListOptions(raw, acceptanceList, query.field);
  const { orderBy, limit, offset } = toFindOptions({ ...list, filter: null }, acceptanceList);
  const conditions: FilterQuery<TermsUserResponse>[] = [{ termsLoginType: loginType }];
  if (list.filter) {
    const like = { $ilike: `%${escapeLike(list.filter)}%` };
    conditions.push({ $or: [{ ipAddress: like }, { userAgent: like }, { login: { email: like } }] });
  }
  const { criteria } = query;
  if (criteria?.TermsOfUseId) conditions.push({ termsOfUse: criteria.TermsOfUseId });
  if (criteria?.IsAccepted !== undefined && criteria?.IsAccepted !== null) conditions.push({ isAccepted: criteria.IsAccepted });
  if (criteria?.LoginId) conditions.push({ login: criteria.LoginId });
  if (criteria?.ContactId) conditions.push({ contact: criteria.ContactId });
  if (query.loginTypes.length) conditions.push({ userLoginType: { $in: query.loginTypes } });
  if (list.calendarStartDate) conditions.push({ actionDate: { $gte: new Date(list.calendarStartDate) } });
  if (list.calendarEndDate) conditions.push({ actionDate: endOf(list.calendarEndDate) });
  const where: FilterQuery<TermsUserResponse> = { $and: conditions };

  const [rows, total, choices] = await Promise.all([
    leanRows(ctx.em, TermsUserResponse, { fields: [...RESPONSE_FIELDS], where, orderBy, limit, offset }),
    ctx.em.count(TermsUserResponse, where),
    termsLookup(ctx, loginType),
  ]);
  const contactIds = [...new Set(rows.flatMap((row) => (row.contact === null ? [] : [idOf(row.contact)])))];
  const contacts = await ctx.loaders.byId(Contact).loadMany(contactIds);
  const modelItems = contacts.flatMap((contact, index) => (contact && !(contact instanceof Error)
    ? [{ Id: contact.id, Name: displayName(contact), ExtraData: contact.email, CssColor: null, IsSelected: false, IsDeleted: false, Order: index }]
    : []));
  return listResult({ criteria, criteriaItems: choices, total, modelItems, results: rows.map(toResponse) });
}

/** An end date: a date-only value includes its whole day; a date-time is the exact upper bound. */
function endOf(value: string) {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const next = new Date(`${value}T00:00:00Z`);
    next.setUTCDate(next.getUTCDate() + 1);
    return { $lt: next };
  }
  return { $lte: new Date(value) };
}

function optionsObject(options: string | null | undefined): Record<string, unknown> {
  if (!options || !options.trim()) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(options);
  } catch {
    throw BadInput.field('options', 'is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw BadInput.field('options', 'must be a JSON object');
  return raw as Record<string, unknown>;
}

/** LoginTypes from `options`: a JSON array of "staff"/"member" (a comma-separated string is read too). */
function loginTypesOf(value: unknown, field: string): UserLoginType[] {
  if (value === undefined || value === null) return [];
  const items = typeof value === 'string' ? value.split(',').map((item) => item.trim()).filter(Boolean) : value;
  if (!Array.isArray(items) || !items.every((item) => typeof item === 'string' && /^(staff|member)$/i.test(item))) {
    throw BadInput.field(field, 'must be a JSON array of "staff" and "member"');
  }
  return items.map((item: string) => item.toLowerCase() as UserLoginType);
}

const CRITERIA_KEYS = { TermsOfUseId: 'id', LoginId: 'id', ContactId: 'id', IsAccepted: 'bool' } as const;

/** Criteria from `options` (checked here) or from the body (already checked by the schema), normalized. */
function criteriaOf(value: unknown, field: string): UserTermsAcceptanceCriteria | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw BadInput.field(field, 'must be a JSON object');
  const given = value as Record<string, unknown>;
  const criteria: UserTermsAcceptanceCriteria = { TermsOfUseId: null, IsAccepted: null, LoginId: null, ContactId: null };
  for (const [key, kind] of Object.entries(CRITERIA_KEYS) as [keyof typeof CRITERIA_KEYS, 'id' | 'bool'][]) {
    const item = given[key];
    if (item === undefined || item === null) continue;
    if (kind === 'bool' ? typeof item !== 'boolean' : !(Number.isInteger(item) && (item as number) >= 1 && (item as number) <= 2147483647)) {
      throw BadInput.field(`${field}.${key}`, kind === 'bool' ? 'must be true or false' : 'must be a positive integer');
    }
    (criteria as Record<string, unknown>)[key] = item;
  }
  return criteria;
}

// ---------------------------------------------------------------------------------------------
// AboutMe
// ---------------------------------------------------------------------------------------------

export interface TermsStatus {
  termsOfUseId: number;
  content: string;
  /** The caller's latest response to these terms accepted their current text. */
  agreed: boolean;
}

/**
 * The current terms of each portal the caller uses and whether the caller agreed to them: the hub
 * for every login, the back office for staff logins. Null: the tenant has no such terms (nothing
 * to agree to). Two statements, run together.
 */
export async function termsStatusFor(ctx: RequestContext): Promise<{ backOffice: TermsStatus | null; hub: TermsStatus | null }> {
  const caller = ctx.requireCaller();
  const types: TermsLoginType[] = caller.roles.includes('staff') ? ['staff', 'hub'] : ['hub'];
  const latest = ctx.em.createQueryBuilder(TermsUserResponse) as unknown as DistinctQuery;
  latest.select(['termsOfUse', 'revision', 'isAccepted']).distinctOn(['termsOfUse'])
    .where({ login: caller.loginId, termsLoginType: { $in: types } }).orderBy([{ termsOfUse: 'asc' }, { id: 'desc' }]);
  await latest.applyFilters();
  const [current, responses] = await Promise.all([
    currentTerms(ctx, types),
    latest.execute('all', { mapResults: true }) as Promise<Pick<TermsUserResponse, 'termsOfUse' | 'revision' | 'isAccepted'>[]>,
  ]);
  const status = (type: TermsLoginType): TermsStatus | null => {
    const terms = current.get(type);
    if (!terms) return null;
    const response = responses.find((row) => idOf(row.termsOfUse) === terms.id);
    return { termsOfUseId: terms.id, content: terms.description, agreed: Boolean(response?.isAccepted && response.revision === terms.revision) };
  };
  return { backOffice: status('staff'), hub: status('hub') };
}

// ---------------------------------------------------------------------------------------------

function toCollectionItem(terms: Pick<TermsOfUse, 'id' | 'name'>): TermsOfUseCollectionItem {
  return { TermsOfUseId: terms.id, Name: terms.name };
}

function toAddEdit(terms: TermsRow, originalDescription: string | null): TermsOfUseAddEdit {
  return {
    TermsOfUseId: terms.id, Name: terms.name, Description: terms.description, AuditId: terms.auditId, LoginType: terms.loginType,
    OriginalDescription: originalDescription, forceSave: false,
  };
}

function toResponse(row: ResponseRow | { [K in keyof ResponseRow]: unknown }): TermsUsersResponse {
  const response = row as ResponseRow;
  return {
    TermUserResponseId: response.id,
    ContactId: response.contact === null ? null : idOf(response.contact),
    LoginId: idOf(response.login),
    TenantId: idOf(response.tenant),
    UserLoginTypeId: response.userLoginType,
    IsAccepted: response.isAccepted,
    TermsOfUseId: idOf(response.termsOfUse),
    ActionDate: new Date(response.actionDate).toISOString(),
    IpBrowserInfo: response.userAgent ? `${response.ipAddress} | ${response.userAgent}` : response.ipAddress,
  };
}

/** A relation as a lean row holds it (the key) or as an entity holds it (a reference). */
function idOf(value: unknown): number {
  return typeof value === 'object' && value !== null ? (value as { id: number }).id : (value as number);
}

interface DistinctQuery {
  select(fields: string[]): DistinctQuery;
  distinctOn(fields: string[]): DistinctQuery;
  where(cond: object): DistinctQuery;
  orderBy(order: object[]): DistinctQuery;
  applyFilters(): Promise<void>;
  execute(method: 'all', options: { mapResults: boolean }): Promise<unknown[]>;
}

interface SnapshotInsert {
  insert(data: object): SnapshotInsert;
  onConflict(fields: string[]): SnapshotInsert;
  ignore(): SnapshotInsert;
  execute(): Promise<unknown>;
}
