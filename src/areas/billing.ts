import type { EntityManager } from '@mikro-orm/postgresql';
import { defineArea } from '../core/area.js';
import {
  MembershipTypePaymentPlan, PaymentGatewayAccount, PaymentGatewayTransaction, ScheduledBilling, ScheduledBillingDownload, ScheduledBillingRunItem, ScheduledBillingRunRecord,
} from '../entities/billing.js';
import type { Tenant } from '../entities/tenant.js';
import { PaymentGatewayResolver, PaymentPlanResolver, ScheduledBillingResolver } from '../resolvers/billing.js';
import { billingRoutes } from '../rest/billing.js';
import { seedPaymentGateways } from '../services/billing/payment-gateways.js';
import { seedPaymentPlans } from '../services/billing/payment-plans.js';
import { applyPaidScheduledBilling } from '../services/billing/membership-changes.js';
import { BILLING_SOURCE, billingJobSettingsFromEnv, scheduledBillingJobs, seedScheduledBilling } from '../services/billing/scheduled-billing.js';

/** Scheduled billing of memberships (runs as jobs), payment gateway statements and membership type payment plans. */
export const billingArea = defineArea({
  name: 'billing',
  entities: [ScheduledBilling, ScheduledBillingRunRecord, ScheduledBillingRunItem, ScheduledBillingDownload, PaymentGatewayAccount, PaymentGatewayTransaction, MembershipTypePaymentPlan],
  resolvers: [ScheduledBillingResolver, PaymentGatewayResolver, PaymentPlanResolver],
  routes: billingRoutes,
  jobs: scheduledBillingJobs(billingJobSettingsFromEnv()),
  paidInvoiceSources: { [BILLING_SOURCE]: applyPaidScheduledBilling },
  demo: async (em: EntityManager, tenant: Tenant, marker: string) => {
    await seedScheduledBilling(em, tenant, marker);
    await seedPaymentGateways(em, tenant, marker);
    await seedPaymentPlans(em, tenant, marker);
  },
});
