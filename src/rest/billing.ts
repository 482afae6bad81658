import type { RouteRow } from './route-table.js';

/*
 * The GETs documented with a body model (monthly statement, transactions, transfers) take its
 * fields from the query string (AccountId, PaymentGatewayTypeId, Month, Year, Date, StartDate,
 * EndDate: the fields' arguments, schema/payment-gateways.ts); HTTP clients cannot send a body
 * with a GET. The run results file a download request prepared is our own addition (GET
 * .../run/history/download/file/{pendingdownloadfileid}).
 */

const SB = '/api/scheduledbilling/membershiptype';
/** Our additions (issue 34): staff keep billing schedules and gateway accounts (paths checked against every documented one). */
const SCHEDULES = '/api/scheduledbilling/schedules';
const ACCOUNTS = '/api/paymentgateway/gatewayaccounts';

export const billingRoutes: RouteRow[] = [
  { method: 'POST', path: `${SB}/items`, field: 'Query.scheduledBillingItems', body: 'filter' },
  { method: 'POST', path: `${SB}/items/export`, field: 'Query.scheduledBillingExport', body: 'filter', download: true, downloadMediaTypes: ['text/csv'] },
  { method: 'POST', path: `${SB}/items/run`, field: 'Mutation.runScheduledBilling', body: 'input', emptyResponse: true },
  { method: 'POST', path: `${SB}/items/run/setup`, field: 'Query.scheduledBillingRunSetup', body: 'input' },
  { method: 'GET', path: `${SB}/run/history`, field: 'Query.scheduledBillingRunHistory' },
  { method: 'POST', path: `${SB}/run/history/download/{systemjobid}`, field: 'Mutation.requestScheduledBillingRunDownload' },
  {
    method: 'GET', path: `${SB}/run/history/download/file/{pendingdownloadfileid}`, field: 'Query.scheduledBillingDownloadFile', download: true, downloadMediaTypes: ['text/csv'], extension: true,
    summary: 'The file a run/history/download request prepared (CSV); 409 while it is being prepared.',
  },

  { method: 'GET', path: `${SCHEDULES}/{scheduledbillingid}`, field: 'Query.billingSchedule', extension: true, summary: 'One billing schedule with its AuditId, staff only.' },
  {
    method: 'POST', path: `${SCHEDULES}/{scheduledbillingid}`, field: 'Mutation.saveBillingSchedule', body: 'input', extension: true,
    summary: 'Creates (0) or updates a billing schedule; Status active, paused or ended (final). Staff only.',
  },
  {
    method: 'DELETE', path: `${SCHEDULES}/{scheduledbillingid}`, field: 'Mutation.deleteBillingSchedule', extension: true,
    summary: 'Deletes a billing schedule no run has billed (409 otherwise: end it); ?auditId= guards the version. Staff only.',
  },

  { method: 'GET', path: ACCOUNTS, field: 'Query.paymentGatewayAccounts', extension: true, summary: 'The payment gateway accounts (never their credentials), staff only.' },
  { method: 'GET', path: `${ACCOUNTS}/{gatewayaccountid}`, field: 'Query.paymentGatewayAccount', extension: true, summary: 'One payment gateway account, staff only.' },
  {
    method: 'POST', path: `${ACCOUNTS}/{gatewayaccountid}`, field: 'Mutation.savePaymentGatewayAccount', body: 'input', extension: true,
    summary: 'Creates (0) or updates a payment gateway account; its Secret is stored encrypted, never returned. Staff only.',
  },
  {
    method: 'DELETE', path: `${ACCOUNTS}/{gatewayaccountid}`, field: 'Mutation.deletePaymentGatewayAccount', extension: true,
    summary: 'Deletes a payment gateway account nothing uses (409 while transactions, chapters or store settings do). Staff only.',
  },

  { method: 'GET', path: '/api/paymentgateway/account/{accountid}/transfer/{id}/{paymentgatewaytypeid}/{date}', field: 'Query.paymentGatewayTransferDetails' },
  { method: 'GET', path: '/api/paymentgateway/account/monthlystatement', field: 'Query.paymentGatewayMonthlyStatement' },
  { method: 'GET', path: '/api/paymentgateway/account/transactions', field: 'Query.paymentGatewayTransactions' },
  { method: 'GET', path: '/api/paymentgateway/account/transfers', field: 'Query.paymentGatewayTransfers' },
  { method: 'GET', path: '/api/paymentgateway/paymentgateways/platformpaytransactionreport/lookup', field: 'Query.platformPayTransactionReportLookup' },
  { method: 'GET', path: '/api/paymentgateway/paymentgateways/lookup', field: 'Query.paymentGatewayLookup' },

  { method: 'GET', path: '/api/membershiptypes/{membershiptypeid}/copypaymentplan/{membershiptypepaymentplanid}', field: 'Query.paymentPlanCopyTemplate' },
  { method: 'GET', path: '/api/membershiptypes/{membershiptypeid}/paymentplan/{membershiptypepaymentplanid}', field: 'Query.paymentPlan' },
  { method: 'POST', path: '/api/membershiptypes/{membershiptypeid}/paymentplan/{membershiptypepaymentplanid}', field: 'Mutation.savePaymentPlan', body: 'input' },
  { method: 'DELETE', path: '/api/membershiptypes/{membershiptypeid}/paymentplan/{membershiptypepaymentplanid}', field: 'Mutation.deletePaymentPlan', emptyResponse: true },
  { method: 'GET', path: '/api/membershiptypes/{membershiptypeid}/paymentplans', field: 'Query.paymentPlans' },
];
