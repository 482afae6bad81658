import { defineArea } from '../core/area.js';
import { PartnerAffiliation, PartnerRecord, PartnerTransactionLog } from '../entities/partner.js';
import { PartnerSyncResolver } from '../resolvers/partner-sync.js';
import { partnerSyncRoutes } from '../rest/partner-sync.js';
import { seedPartnerSync } from '../services/partner-sync/partner-sync.js';

export const partnerSyncArea = defineArea({
  name: 'partner-sync',
  entities: [PartnerRecord, PartnerAffiliation, PartnerTransactionLog],
  resolvers: [PartnerSyncResolver],
  routes: partnerSyncRoutes,
  demo: seedPartnerSync,
});
