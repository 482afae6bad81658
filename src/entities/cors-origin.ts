import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantOwned } from './base.js';

/**
 * A browser origin (`https://portal.example.org`) a tenant allows to call the API from another
 * site (CORS), in addition to the instance's `CORS_ORIGINS`: see services/cors-origins/cors-origins.ts for when
 * it applies. Stored as the browser sends it in `Origin` (scheme, lower-case host, port unless
 * the default).
 */
@Entity({ tableName: 'tenant_cors_origin' })
@Unique({ properties: ['tenant', 'origin'] })
export class TenantCorsOrigin extends TenantOwned {
  @Property({ length: 300 })
  origin!: string;
}
