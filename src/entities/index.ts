import { TenantOwned } from './base.js';
import { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback } from './callback.js';
import { Contact } from './contact.js';
import { Credential } from './credential.js';
import { Login } from './login.js';
import { MagicLinkToken, SignInRequest } from './magic-link.js';
import { Membership, MembershipLevel, MembershipType } from './membership.js';
import { OutboxMessage } from './outbox.js';
import { SecurityQuestion } from './security-question.js';
import { Tenant } from './tenant.js';
import { Vendor } from './vendor.js';

export { Contact, Credential, Login, MagicLinkToken, Membership, MembershipLevel, MembershipType, OutboxMessage, SecurityQuestion, SignInRequest, Tenant, Vendor };
export { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback };

/** Every entity the ORM knows. A new area adds its entities here. */
export const entities = [
  Tenant, SecurityQuestion, SignInRequest,
  Contact, Login, Credential, MagicLinkToken, OutboxMessage,
  MembershipType, MembershipLevel, Membership,
  Vendor,
  CallbackSecret, ProviderCallback, EmailEvent, MeetingEvent,
];

/** The entities confined to one tenant by the tenant filter. */
export const tenantOwnedEntities = entities.filter((entity) => entity.prototype instanceof TenantOwned);
