import { defineArea } from '../core/area.js';
import { MembershipResolver } from '../resolvers/memberships.js';
import { membershipRoutes } from '../rest/memberships.js';
import { membershipLapseJob } from '../services/memberships/lapse.js';
import { activatePaidTerm, MEMBERSHIP_SOURCE } from '../services/memberships/memberships.js';

/** Membership types with levels, and memberships (one row per term): enrol, bill, activate, renew, cancel, and the daily lapse. */
export const membershipsArea = defineArea({
  name: 'memberships',
  resolvers: [MembershipResolver],
  routes: membershipRoutes,
  jobs: [membershipLapseJob],
  paidInvoiceSources: { [MEMBERSHIP_SOURCE]: activatePaidTerm },
});
