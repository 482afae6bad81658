import type { MigrationObject } from '@mikro-orm/core';
import { InitialSchema } from './0001-initial.js';
import { SignaturesSchema } from './0002-signatures.js';
import { SamlServiceProvidersSchema } from './0003-saml-service-providers.js';
import { TermsOfUseSchema } from './0004-terms-of-use.js';
import { SocialFeedsSchema } from './0005-social-feeds.js';
import { CalendarsSchema } from './0006-calendars.js';
import { CallbacksSchema } from './0007-callbacks.js';
import { FilesAndImages } from './0008-files-and-images.js';

/**
 * Every migration, oldest first. `npm run cli -- migration create` writes a new file here from
 * the difference between the entities and the database; rename it with the next number and
 * add it to this list.
 */
export const migrations: MigrationObject[] = [
  { name: '0001-initial', class: InitialSchema },
  { name: '0002-signatures', class: SignaturesSchema },
  { name: '0003-saml-service-providers', class: SamlServiceProvidersSchema },
  { name: '0004-terms-of-use', class: TermsOfUseSchema },
  { name: '0005-social-feeds', class: SocialFeedsSchema },
  { name: '0006-calendars', class: CalendarsSchema },
  { name: '0007-callbacks', class: CallbacksSchema },
  { name: '0008-files-and-images', class: FilesAndImages },
];
