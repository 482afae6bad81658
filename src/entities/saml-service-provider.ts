import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';

/**
 * A SAML 2.0 service provider the tenant sets up; its metadata document can be downloaded.
 * `entityId` and `assertionConsumerServiceUrl` are null when the provider uses the defaults
 * derived from the tenant's address and the record id (services/saml-service-providers/saml-service-providers.ts).
 * An explicit entity id is unique within the tenant.
 */
@Entity()
@Unique({ properties: ['tenant', 'entityId'] })
export class SamlServiceProvider extends TenantOwned {
  @Property({ length: 200 })
  name!: string;

  @Property({ length: 200 })
  serviceProviderName!: string;

  @Property({ length: 1024, nullable: true })
  entityId: string | null = null;

  @Property({ length: 2048, nullable: true })
  assertionConsumerServiceUrl: string | null = null;
}
