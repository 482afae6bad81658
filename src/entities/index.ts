import { TenantOwned } from './base.js';
import { Calendar } from './calendar.js';
import { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback } from './callback.js';
import { Contact } from './contact.js';
import { Credential } from './credential.js';
import { FileContent, StoredFile } from './file.js';
import { StoredImage } from './image.js';
import { Login } from './login.js';
import { MagicLinkToken, SignInRequest } from './magic-link.js';
import { Membership, MembershipLevel, MembershipType } from './membership.js';
import { OutboxMessage } from './outbox.js';
import { SamlServiceProvider } from './saml-service-provider.js';
import { SecurityQuestion } from './security-question.js';
import { Signature } from './signature.js';
import { SocialFeed, SocialFeedComment, SocialFeedLike } from './social-feed.js';
import { Tenant } from './tenant.js';
import { TermsOfUse, TermsOfUseText, TermsUserResponse } from './terms-of-use.js';
import { Vendor } from './vendor.js';

export { Calendar, Contact, Credential, Login, MagicLinkToken, Membership, MembershipLevel, MembershipType, OutboxMessage, SecurityQuestion, SignInRequest, Tenant, Vendor };
export { CallbackSecret, EmailEvent, MeetingEvent, ProviderCallback };

/** Every entity the ORM knows. A new area adds its entities here. */
export const entities = [
  Tenant, SecurityQuestion, SignInRequest,
  Contact, Login, Credential, MagicLinkToken, OutboxMessage,
  MembershipType, MembershipLevel, Membership,
  Vendor,
  Signature,
  SamlServiceProvider,
  SocialFeed, SocialFeedComment, SocialFeedLike,
  TermsOfUse, TermsOfUseText, TermsUserResponse,
  FileContent, StoredFile, StoredImage,
  Calendar,
  CallbackSecret, ProviderCallback, EmailEvent, MeetingEvent,
];

/** The entities confined to one tenant by the tenant filter. */
export const tenantOwnedEntities = entities.filter((entity) => entity.prototype instanceof TenantOwned);
