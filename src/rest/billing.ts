import type { RouteRow } from './route-table.js';

/*
 * The GETs documented with a body model (monthly statement, transactions, transfers) take its
 * fields from the query string (AccountId, PaymentGatewayTypeId, Month, Year, Date, StartDate,
 * EndDate: the fields' arguments, schema/payment-gateways.ts); HTTP clients cannot send a body
 * with a GET. The run results file a download request prepared is our own addition (GET
 * .../run/history/download/file/{pendingdownloadfileid}).
 */

const SB = '/api/scheduledbilling/membershiptype';

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
