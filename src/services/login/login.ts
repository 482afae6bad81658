import type { RequestContext } from '../../core/context.js';
import { Forbidden, NotFound, Unauthenticated } from '../../core/errors.js';
import { secretsEqual } from '../../core/runtime/secrets.js';
import { Contact, Login, SecurityQuestion, Tenant } from '../../entities/index.js';
import { displayName } from '../../entities/contact.js';
import { leanRows } from '../../core/data/lean-read.js';
import type { AboutMe, SecurityQuestion as SecurityQuestionItem } from '../../schema/login.js';
import { normalizeEmail } from './identity.js';
import { termsStatusFor } from '../terms-of-use/terms-of-use.js';

/**
 * The caller's tenant, contact, organization and roles, and the current terms of use with whether
 * the caller agreed to them (services/terms-of-use/terms-of-use.ts): back-office terms for staff logins, member
 * hub terms for all. Where there are no such terms (or, for a member, no back office) there is
 * nothing to agree to: the id and content are null and HasAgreed… is true.
 */
export async function aboutMe(ctx: RequestContext): Promise<AboutMe> {
  const caller = ctx.requireCaller();
  const [tenant, terms] = await Promise.all([ctx.em.findOneOrFail(Tenant, { id: caller.tenantId }), termsStatusFor(ctx)]);
  const contact = caller.contactId ? await ctx.loaders.byId(Contact).load(caller.contactId) : null;
  const organization = contact?.organization ? await ctx.loaders.byId(Contact).load(contact.organization.id) : null;
  return {
    FirstName: contact?.firstName ?? null,
    Name: contact ? displayName(contact) : null,
    LastName: contact?.lastName ?? null,
    ContactId: contact?.id ?? null,
    TenantId: tenant.id,
    TenantName: tenant.name,
    TenantDomain: tenant.domain,
    TenantKey: tenant.key,
    CurrentOrganizationId: organization?.id ?? null,
    CurrentOrganizationName: organization ? displayName(organization) : null,
    HasAgreedOnBackOfficeTerms: terms.backOffice?.agreed ?? true,
    TermsContent: terms.backOffice?.content ?? null,
    TermsOfUseId: terms.backOffice ? String(terms.backOffice.termsOfUseId) : null,
    TenantLogoUrl: tenant.logoUrl,
    TenantLogoShortDescription: tenant.logoShortDescription,
    ContactLogoUrl: contact?.logoUrl ?? null,
    ContactLogoShortDescription: contact?.logoShortDescription ?? null,
    AllRoles: [...caller.roles],
    DirectoryModuleItems: [],
    ContentModuleItems: [],
    InfoHubTermsOfUseId: terms.hub ? String(terms.hub.termsOfUseId) : null,
    HasAgreedOnInfoHubTerms: terms.hub?.agreed ?? true,
    InfoHubTermsOfUseContent: terms.hub?.content ?? null,
  };
}

/** True when login `loginId` belongs to the tenant with `tenantKey`; only the caller's own tenant can be asked about. */
export async function clientAuthCheck(ctx: RequestContext, loginId: number, tenantKey: string): Promise<true> {
  const caller = ctx.requireCaller();
  const tenant = await ctx.em.findOne(Tenant, { id: caller.tenantId });
  if (!tenant || tenant.key !== tenantKey.toLowerCase()) throw new Unauthenticated('The login does not belong to that tenant.');
  const login = await ctx.em.findOne(Login, { id: loginId });
  if (!login) throw new Unauthenticated('The login does not belong to that tenant.');
  return true;
}

/** The questions offered for account recovery (shared by all tenants), in their order. */
export async function securityQuestions(ctx: RequestContext): Promise<SecurityQuestionItem[]> {
  const rows = await leanRows(ctx.reader, SecurityQuestion, { fields: ['id', 'name'], where: {}, orderBy: [{ sortOrder: 'asc' }, { id: 'asc' }] });
  return rows.map((question) => ({ Id: question.id, Name: question.name }));
}

/**
 * Removes a user (every login with that e-mail, in every tenant) and its credentials. Guarded
 * by the MASTER_KEY; disabled (403) when the server has none.
 */
export async function deleteLoginEverywhere(ctx: RequestContext, username: string, masterKey: string): Promise<true> {
  const expected = ctx.app.config.MASTER_KEY;
  if (!expected) throw new Forbidden('This operation is disabled on this server.');
  if (!secretsEqual(masterKey, expected)) throw new Unauthenticated('The master key is not valid.');
  // Sessions, API keys and pending links go with the login (ON DELETE CASCADE).
  const removed = await ctx.em.nativeDelete(Login, { email: normalizeEmail(username) }, { filters: false });
  if (removed === 0) throw new NotFound('The user');
  // Every instance forgets its credentials on the trigger's notification; this one at once, so the next request here already sees the deletion.
  ctx.app.credentials.forgetAll();
  return true;
}
