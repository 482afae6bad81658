import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../../core/context.js';
import { BadInput, NotFound } from '../../core/errors.js';
import { idOf } from '../../core/data/lean-read.js';
import { listQuery, MAX_PAGE_SIZE, defineList } from '../../core/data/list-query.js';
import { deleteRecord, readOr404, updateRecord } from '../../core/data/records.js';
import { Contact, displayName } from '../../entities/contact.js';
import { Login } from '../../entities/login.js';
import { Signature } from '../../entities/signature.js';
import type { Tenant } from '../../entities/tenant.js';
import { lookupChoices, type ListOptionsInput, type LookupChoiceInt } from '../../schema/common.js';
import { ManageSignatures, SignatureAddEdit, SignatureCollectionItem, type SignatureAddEditInput } from '../../schema/signatures.js';
import { sanitizeSignatureHtml } from './signature-html.js';

/**
 * Who sees which signatures: every signed-in login manages its own (those whose owner is the
 * login's contact); staff may list, read, save and delete every signature of the tenant. A
 * member asking for someone else's signature is told it does not exist (404), as for another
 * tenant's. `currentusersignatures`, `lookup` and `managesignaturedialog` are the caller's own
 * for everyone, staff included.
 */

const signatureList = defineList(Signature, {
  operations: ['Query.signatures'],
  orderBy: { Name: 'name', SignatureId: 'id' },
  defaultOrder: 'Name',
  search: ['name'],
});

const INT32_MAX = 2147483647;

/** A condition on the owner: empty for the whole tenant. */
type Scope = { contact?: number };

type SignatureRow = Pick<Signature, 'id' | 'name' | 'signatureHtml'> & { contact: Contact | number };

/** The signatures the caller may reach through the list, read, save and delete; null: none at all. */
function reachable(ctx: RequestContext): Scope | null {
  return ctx.isStaff ? {} : own(ctx);
}

/** The caller's own signatures; null when the login has no contact (and so owns none). */
function own(ctx: RequestContext): Scope | null {
  const { contactId } = ctx.requireCaller();
  return contactId ? { contact: contactId } : null;
}

/** A page of the signatures the caller may manage (staff: the tenant's; members: their own). */
export async function listSignatures(ctx: RequestContext, options: ListOptionsInput | null | undefined): Promise<SignatureCollectionItem[]> {
  const scope = reachable(ctx);
  if (!scope) return [];
  const { rows } = await listQuery(ctx, Signature, signatureList, options, { fields: ['id', 'name', 'contact'], where: scope });
  const users = await ownerNames(ctx, rows.map((row) => idOf(row.contact)));
  return rows.map((row, index) => ({ SignatureId: row.id, Name: row.name, User: users[index] ?? null }));
}

/** The caller's own signatures, by name (at most MAX_PAGE_SIZE). */
export async function currentUserSignatures(ctx: RequestContext): Promise<SignatureAddEdit[]> {
  const scope = own(ctx);
  if (!scope) return [];
  const { rows } = await listQuery(ctx, Signature, signatureList, { Take: MAX_PAGE_SIZE }, { fields: ['id', 'name', 'contact', 'signatureHtml'], where: scope });
  return rows.map(toAddEdit);
}

/** The caller's own signatures as choices (Id, Name, Order), for picking one when writing. */
export async function signatureLookup(ctx: RequestContext): Promise<LookupChoiceInt[]> {
  const scope = own(ctx);
  if (!scope) return [];
  const { rows } = await listQuery(ctx, Signature, signatureList, { Take: MAX_PAGE_SIZE }, { fields: ['id', 'name'], where: scope });
  return lookupChoices(rows);
}

export async function manageSignatureDialog(ctx: RequestContext): Promise<ManageSignatures> {
  return { Signatures: await currentUserSignatures(ctx) };
}

const NOUN = 'The signature';

export async function getSignature(ctx: RequestContext, signatureId: number): Promise<SignatureAddEdit> {
  const scope = reachable(ctx);
  if (!scope) throw new NotFound(NOUN);
  return toAddEdit(await readOr404(ctx, Signature, ['id', 'name', 'contact', 'signatureHtml'], signatureId, NOUN, scope));
}

/**
 * Create-or-update: `signatureId` 0 creates, an existing id updates, an unknown (or unreachable)
 * one is 404; the body's SignatureId is ignored. The HTML is sanitized before it is stored.
 * Staff choose the owner with ContactId; a member's signatures are always the member's own.
 */
export async function saveSignature(ctx: RequestContext, signatureId: number, input: SignatureAddEditInput): Promise<SignatureCollectionItem> {
  const caller = ctx.requireCaller();
  const chosenOwner = ctx.isStaff && input.ContactId ? await ownerContact(ctx, input.ContactId) : null;
  const fields = { name: input.Name.trim(), signatureHtml: await sanitizeSignatureHtml(input.SignatureHtml) };
  let id = signatureId;
  let ownerId: number;
  if (signatureId !== 0) {
    const scope = reachable(ctx);
    if (!scope) throw new NotFound(NOUN);
    // The owner it keeps unless staff name another; then one UPDATE, which must still find the row.
    ownerId = chosenOwner?.id ?? idOf((await readOr404(ctx, Signature, ['contact'], signatureId, NOUN, scope)).contact);
    await updateRecord(ctx, Signature, signatureId, { ...fields, ...(chosenOwner ? { contact: chosenOwner } : {}) }, NOUN, scope);
  } else {
    const owner = chosenOwner ?? (caller.contactId ? ctx.em.getReference(Contact, caller.contactId) : null);
    if (!owner) throw BadInput.field('ContactId', 'is required: this login has no contact of its own to own the signature');
    const signature = ctx.em.create(Signature, { tenant: ctx.tenantId, contact: owner, ...fields });
    await ctx.em.persist(signature).flush();
    id = signature.id;
    ownerId = owner.id;
  }
  const [user] = await ownerNames(ctx, [ownerId]);
  return { SignatureId: id, Name: fields.name, User: user ?? null };
}

/** Deletes a signature the caller may manage (one DELETE, so of concurrent deletes one succeeds); answers its id. */
export function deleteSignature(ctx: RequestContext, signatureId: number): Promise<number> {
  const scope = reachable(ctx);
  if (!scope) throw new NotFound(NOUN);
  return deleteRecord(ctx, Signature, signatureId, null, NOUN, scope);
}

/** The contact a staff member names as owner; it must be a (not deleted) contact of the tenant. */
async function ownerContact(ctx: RequestContext, contactId: string): Promise<Contact> {
  const id = Number(contactId);
  const contact = Number.isSafeInteger(id) && id > 0 && id <= INT32_MAX ? await ctx.loaders.byId(Contact).load(id) : null;
  if (!contact) throw BadInput.field('ContactId', 'names no contact');
  return contact;
}

/** Owners' display names, in the order asked, through the per-request contact loader (one query). */
async function ownerNames(ctx: RequestContext, contactIds: number[]): Promise<(string | null)[]> {
  const contacts = await ctx.loaders.byId(Contact).loadMany(contactIds);
  return contacts.map((contact) => (contact && !(contact instanceof Error) ? displayName(contact) || null : null));
}

function toAddEdit(row: SignatureRow): SignatureAddEdit {
  return { SignatureId: row.id, Name: row.name, ContactId: String(idOf(row.contact)), SignatureHtml: row.signatureHtml };
}

/** Demo signatures: one for each login of the new tenant that has a contact. */
export async function seedSignatures(em: EntityManager, tenant: Tenant, marker: string): Promise<void> {
  const logins = await em.find(Login, { tenant }, { filters: false, populate: ['contact'] });
  for (const login of logins) {
    if (!login.contact) continue;
    const name = displayName(login.contact) || login.email;
    em.create(Signature, { tenant, contact: login.contact, name: `${marker}Default`, signatureHtml: `<p>${marker}${name}<br><b>Demo Association</b></p>` });
  }
  await em.flush();
}
