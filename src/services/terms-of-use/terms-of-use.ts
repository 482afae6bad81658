import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, Conflict, Forbidden } from '../../core/errors.js';
import { isOneOf } from '../../core/values.js';
import { loadSanitizeHtml } from '../../core/runtime/format-libraries.js';
import { idOf, insertIgnoringDuplicates, leanDistinctOn, leanRows } from '../../core/data/lean-read.js';
import { listQuery, MAX_PAGE_SIZE, parseListOptions, defineList } from '../../core/data/list-query.js';
import { assertCurrentVersion, findOr404, likelyDuplicates, readOr404, softDeleteRecord, withDuplicateLock } from '../../core/data/records.js';
import { Contact, displayName } from '../../entities/contact.js';
import { Login } from '../../entities/login.js';
import {
  TERMS_LOGIN_TYPES, TermsOfUse, TermsOfUseText, termsNameKey, TermsUserResponse, USER_LOGIN_TYPES, type TermsLoginType, type UserLoginType,
} from '../../entities/terms-of-use.js';
import type { Tenant } from '../../entities/tenant.js';
import { listResult, lookupChoices, type ListOptionsInput, type ListResultOf, type LookupChoiceInt, type PotentialDuplicateEntry } from '../../schema/common.js';
import {
  type TermsOfUseAddEdit, type TermsOfUseAddEditInput, type TermsOfUseCollectionItem, type TermsOfUseView, type TermsUsersResponse,
  type TermsUsersResponseInput, type UserTermsAcceptanceCriteria, type UserTermsAcceptanceFilterInput,
} from '../../schema/terms-of-use.js';

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

const termsList = defineList(TermsOfUse, {
  operations: ['Query.termsOfUseList'],
  orderBy: { Name: 'name', TermsOfUseId: 'id', LoginType: 'loginType' },
  defaultOrder: 'Name',
  search: ['name'],
});

const acceptanceList = defineList(TermsUserResponse, {
  operations: ['Query.hubTermsAcceptances', 'Query.staffTermsAcceptances'],
  orderBy: {
    ActionDate: 'actionDate', TermUserResponseId: 'id', TermsOfUseId: 'termsOfUse', LoginId: 'login', ContactId: 'contact',
    IsAccepted: 'isAccepted', UserLoginTypeId: 'userLoginType',
  },
  defaultOrder: 'ActionDate desc',
  search: ['ipAddress', 'userAgent', 'login.email'],
  dates: 'actionDate',
}, 'many');

/** The lookup has no options of its own: the whole list (up to the largest page), by name. */
const LOOKUP_PAGE = { Take: String(MAX_PAGE_SIZE) };

const TERMS_FIELDS = ['id', 'name', 'description', 'loginType', 'auditId', 'revision'] as const;
const RESPONSE_FIELDS = [
  'id', 'tenant', 'termsOfUse', 'login', 'contact', 'userLoginType', 'isAccepted', 'actionDate', 'ipAddress', 'userAgent',
] as const;

type TermsRow = Pick<TermsOfUse, (typeof TERMS_FIELDS)[number]>;
type ResponseRow = Pick<TermsUserResponse, (typeof RESPONSE_FIELDS)[number]>;

/** Terms HTML as stored and served: sanitize-html's default allow-list (no scripts, styles or event handlers). */
export async function sanitizeTermsHtml(html: string): Promise<string> {
  const sanitizeHtml = await loadSanitizeHtml();
  return sanitizeHtml(html, { allowedAttributes: { ...sanitizeHtml.defaults.allowedAttributes, '*': ['class'] } }).trim();
}

// ---------------------------------------------------------------------------------------------
// Terms management (staff)
// ---------------------------------------------------------------------------------------------

const NOUN = 'The terms of use';

export async function listTermsOfUse(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<TermsOfUseCollectionItem[]> {
  // Read under the model's keys: the rows are the answer.
  const { rows } = await listQuery(ctx, TermsOfUse, termsList, options, { fields: { TermsOfUseId: 'id', Name: 'name' } });
  return rows;
}

export async function getTermsOfUse(ctx: RequestContext, termsOfUseId: number): Promise<TermsOfUseAddEdit> {
  const terms = await readOr404(ctx, TermsOfUse, TERMS_FIELDS, termsOfUseId, NOUN);
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
  const terms = await readOr404(ctx, TermsOfUse, ['id', 'description'], termsOfUseId, NOUN);
  return { TermsOfUseId: terms.id, TermsDescription: terms.description };
}

/** Every terms of use as lookup choices: ExtraData is the LoginType, IsSelected marks the current terms of each login type. */
export async function termsLookup(ctx: RequestContext, loginType?: TermsLoginType): Promise<LookupChoiceInt[]> {
  const { rows } = await listQuery(ctx, TermsOfUse, termsList, LOOKUP_PAGE, { fields: ['id', 'name', 'loginType'], where: loginType ? { loginType } : {} });
  const newest = new Map<string, number>();
  for (const row of rows) newest.set(row.loginType, Math.max(newest.get(row.loginType) ?? 0, row.id));
  return lookupChoices(rows.map((row) => ({ id: row.id, name: row.name, extraData: row.loginType, selected: newest.get(row.loginType) === row.id })));
}

/**
 * Create-or-update: path id 0 creates, an existing id updates, an unknown one is 404 (the body's
 * TermsOfUseId is ignored). A changed text starts a new text revision. Unless forceSave, a name
 * that another terms of the tenant already has is refused with 409 listing them — checked and
 * saved under a lock on the name, so two concurrent saves of one name cannot both pass.
 */
export async function saveTermsOfUse(ctx: RequestContext, termsOfUseId: number, input: TermsOfUseAddEditInput): Promise<TermsOfUseCollectionItem> {
  const name = input.Name.trim();
  const nameKey = termsNameKey(name);
  const description = await sanitizeTermsHtml(input.Description);
  if (!description) throw BadInput.field('Description', 'must contain text after unsafe HTML is removed');
  const given = input.LoginType?.toLowerCase();
  const loginType = isOneOf(TERMS_LOGIN_TYPES, given) ? given : null; // the schema has checked it

  return withDuplicateLock(ctx, 'terms-of-use', nameKey, async () => {
    const terms = termsOfUseId ? await findOr404(ctx, TermsOfUse, termsOfUseId, NOUN) : null;
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
  });
}

/** Deletes (hides) terms of use if `auditId` is still their version; their responses are kept. Answers the id. */
export function deleteTermsOfUse(ctx: RequestContext, termsOfUseId: number, auditId: number): Promise<number> {
  return softDeleteRecord(ctx, TermsOfUse, termsOfUseId, auditId, NOUN);
}

async function findDuplicates(ctx: RequestContext, nameKey: string, exceptId: number | null): Promise<PotentialDuplicateEntry[]> {
  const rows = await likelyDuplicates(ctx, TermsOfUse, nameKey, exceptId, ['name', 'loginType']);
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
  const rows = await leanDistinctOn(ctx.reader, TermsOfUse, {
    fields: [...TERMS_FIELDS], distinctOn: ['loginType'], where: { loginType: { $in: loginTypes } }, orderBy: [{ loginType: 'asc' }, { id: 'desc' }],
  });
  return new Map(rows.map((row) => [row.loginType, row]));
}

/** The text most recently accepted of some terms (null while nobody accepted them). */
async function lastAcceptedText(ctx: RequestContext, termsOfUseId: number): Promise<string | null> {
  const [text] = await leanRows(ctx.reader, TermsOfUseText, { fields: ['text'], where: { termsOfUse: termsOfUseId }, orderBy: [{ revision: 'desc' }], limit: 1 });
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
  const terms = await readOr404(ctx, TermsOfUse, ['id', 'loginType', 'revision', 'description'], input.TermsOfUseId, NOUN);
  const isStaff = ctx.isStaff;
  if (terms.loginType === 'staff' && !isStaff) throw new Forbidden('Back-office terms of use can be answered by staff logins only.');
  if (input.IsAccepted) {
    // The text and revision come from the same row read, so the snapshot is the text accepted.
    await insertIgnoringDuplicates(ctx.em, TermsOfUseText, [{ tenant: caller.tenantId, termsOfUse: terms.id, revision: terms.revision, text: terms.description }], ['termsOfUse', 'revision']);
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

/**
 * Every recorded response to terms of `loginType`, one page of them, with the count of all that
 * match: the UserTermsAcceptanceFilter (REST: the `options` of the GET or the body of the POST;
 * its TenantId is never read) — FilterBase plus LoginTypes and Criteria. Statements per request
 * are fixed: page, count, the terms choices, and the contacts of the page (one batched load).
 */
export async function listAcceptances(
  ctx: RequestContext, loginType: TermsLoginType, filter: UserTermsAcceptanceFilterInput | null | undefined,
): Promise<ListResultOf<TermsUsersResponse, UserTermsAcceptanceCriteria>> {
  const list = parseListOptions(filter, acceptanceList, '');
  const criteria = filter?.Criteria ? { TermsOfUseId: null, IsAccepted: null, LoginId: null, ContactId: null, ...filter.Criteria } : null;
  const loginTypes = (filter?.LoginTypes ?? []).map((type) => type.toLowerCase()).filter((type): type is UserLoginType => isOneOf(USER_LOGIN_TYPES, type));
  const conditions: FilterQuery<TermsUserResponse>[] = [{ termsLoginType: loginType }];
  if (criteria?.TermsOfUseId) conditions.push({ termsOfUse: criteria.TermsOfUseId });
  if (criteria?.IsAccepted != null) conditions.push({ isAccepted: criteria.IsAccepted });
  if (criteria?.LoginId) conditions.push({ login: criteria.LoginId });
  if (criteria?.ContactId) conditions.push({ contact: criteria.ContactId });
  if (loginTypes.length) conditions.push({ userLoginType: { $in: loginTypes } });

  const [{ rows, total }, choices] = await Promise.all([
    listQuery(ctx, TermsUserResponse, acceptanceList, list, { fields: RESPONSE_FIELDS, where: { $and: conditions }, total: true }),
    termsLookup(ctx, loginType),
  ]);
  const contactIds = [...new Set(rows.flatMap((row) => (row.contact === null ? [] : [idOf(row.contact)])))];
  const contacts = await ctx.loaders.byId(Contact).loadMany(contactIds);
  const modelItems = lookupChoices(contacts.flatMap((contact) => (contact && !(contact instanceof Error)
    ? [{ id: contact.id, name: displayName(contact), extraData: contact.email }]
    : [])));
  return listResult({ criteria, criteriaItems: choices, total: total ?? 0, modelItems, results: rows.map(toResponse) });
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
  const types: TermsLoginType[] = ctx.isStaff ? ['staff', 'hub'] : ['hub'];
  const [current, responses] = await Promise.all([
    currentTerms(ctx, types),
    leanDistinctOn(ctx.reader, TermsUserResponse, {
      fields: ['termsOfUse', 'revision', 'isAccepted'], distinctOn: ['termsOfUse'],
      where: { login: caller.loginId, termsLoginType: { $in: types } }, orderBy: [{ termsOfUse: 'asc' }, { id: 'desc' }],
    }),
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
// Demo

/**
 * Demo terms for a new tenant: back-office and member hub terms, each accepted by the tenant's
 * first login of that portal (a staff login for the back office, any login for the hub), with the
 * accepted text kept as takeaction keeps it.
 */
export async function seedTermsOfUse(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const logins = await em.find(Login, { tenant }, { filters: false, orderBy: { id: 'asc' }, limit: 20 });
  const demo: [TermsLoginType, string, string, Login | undefined][] = [
    ['staff', 'Back-office acceptable use', 'Staff keep member data confidential and use it only for association business.', logins.find((login) => login.roles.includes('staff'))],
    ['hub', 'Member hub terms', 'Be respectful in the member hub; posts may be moderated by staff.', logins.find((login) => login.roles.includes('member')) ?? logins[0]],
  ];
  for (const [loginType, title, text, login] of demo) {
    const name = `${marker}${title}`;
    const description = `<p>${marker}${text}</p>`;
    const terms = em.create(TermsOfUse, { tenant, name, nameKey: termsNameKey(name), description, loginType });
    if (!login) continue;
    em.create(TermsOfUseText, { tenant, termsOfUse: terms, revision: 1, text: description });
    em.create(TermsUserResponse, {
      tenant, termsOfUse: terms, revision: 1, termsLoginType: loginType, login, contact: login.contact,
      userLoginType: login.roles.includes('staff') ? 'staff' : 'member', isAccepted: true, actionDate: new Date(),
      ipAddress: '192.0.2.10', userAgent: `${marker}Mozilla/5.0 (demo)`,
    });
  }
  await em.flush();
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
