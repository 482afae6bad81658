/** The entities services and tests import most, in one place. Which entities the ORM knows is said by the area manifests (`src/areas`). */
export { Calendar } from './calendar.js';
export { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback } from './callback.js';
export { Contact } from './contact.js';
export { ContactExternalId, ContactImport, ContactImportRow } from './contact-import.js';
export { Credential } from './credential.js';
export { Login } from './login.js';
export { MagicLinkToken, SignInRequest } from './magic-link.js';
export { Membership, MembershipLevel, MembershipType } from './membership.js';
export { OutboxMessage } from './outbox.js';
export { SecurityQuestion } from './security-question.js';
export { Tenant } from './tenant.js';
export { Vendor } from './vendor.js';
