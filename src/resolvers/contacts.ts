import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { ContactArchived, ContactInput, ContactListFilterInput, ContactListResult, ContactModel } from '../schema/contacts.js';
import { archiveContact } from '../services/contacts/contact-archive.js';
import * as contacts from '../services/contacts/contacts.js';

@Resolver()
export class ContactResolver {
  @Authorized('staff')
  @Query(() => ContactListResult, { description: 'People and organizations, one page with the total; Filter matches names and the primary e-mail; archived ones only when the criteria ask.' })
  contacts(@Ctx() ctx: RequestContext, @Arg('filter', () => ContactListFilterInput, { nullable: true, description: 'REST: the POST body or the GET options.' }) filter?: ContactListFilterInput | null) {
    return contacts.listContacts(ctx, filter);
  }

  @Authorized('staff')
  @Query(() => ContactModel, { description: 'One person or organization, archived or not.' })
  contact(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number) {
    return contacts.getContact(ctx, contactId);
  }

  @Authorized('staff')
  @Mutation(() => ContactModel, {
    description: 'Creates (contactId 0) or updates a person or organization. 409: a stale AuditId; on create, likely duplicates (same e-mail or name) unless ForceSave; a NationalID another live contact has.',
  })
  saveContact(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number, @Arg('input', () => ContactInput) input: ContactInput) {
    return contacts.saveContact(ctx, contactId, input);
  }

  @Authorized('staff')
  @Mutation(() => ContactArchived, {
    description: 'Archives (soft-deletes) a contact in one transaction: disables its logins and revokes their credentials, cancels its pending and active memberships '
      + '(ending yesterday), ends its billing schedules, cancels its pending store orders (stock back, invoice voided) and removes its chapter links; its directory '
      + 'listings go with the next directory reconcile. Answers what it did. 409: a stale AuditId, a chapter\'s organization (delete the chapter), an organization '
      + 'with people or child organizations.',
  })
  deleteContact(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number, @Arg('auditId', () => Int) auditId: number) {
    return archiveContact(ctx, contactId, auditId);
  }

  @Authorized('staff')
  @Mutation(() => ContactModel, {
    description: 'Restores an archived contact (it shows in lists and the partner feed again). Revives nothing else: memberships, schedules, orders and chapter links '
      + 'stay as archiving left them, and its logins stay disabled until re-enabled. 409: its NationalID was taken by another contact meanwhile.',
  })
  restoreContact(@Ctx() ctx: RequestContext, @Arg('contactId', () => Int) contactId: number) {
    return contacts.restoreContact(ctx, contactId);
  }
}
