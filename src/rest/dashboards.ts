import type { RouteRow } from './route-table.js';

/** The documented dashboard summaries (all GET, no body). `wins by sales person` really has spaces: clients send %20. */
export const dashboardRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/summary/droppedmemberships/{id}', field: 'Query.dashboardDroppedMemberships' },
  { method: 'GET', path: '/api/summary/membershipcategories', field: 'Query.dashboardMembershipCategories' },
  { method: 'GET', path: '/api/summary/membershipstypedistribution/{id}', field: 'Query.dashboardMembershipTypeDistribution' },
  { method: 'GET', path: '/api/summary/newmemberships/{id}', field: 'Query.dashboardNewMemberships' },
  { method: 'GET', path: '/api/summary/newprojectsthismonth', field: 'Query.dashboardNewProjectsThisMonth' },
  { method: 'GET', path: '/api/summary/newprojectsthisyear', field: 'Query.dashboardNewProjectsThisYear' },
  { method: 'GET', path: '/api/summary/projectscompletedthismonth', field: 'Query.dashboardProjectsCompletedThisMonth' },
  { method: 'GET', path: '/api/summary/projectscompletedthisyear', field: 'Query.dashboardProjectsCompletedThisYear' },
  { method: 'GET', path: '/api/summary/renewedmemberships', field: 'Query.dashboardRenewedMemberships' },
  { method: 'GET', path: '/api/summary/salesvelocity/{id}', field: 'Query.dashboardSalesVelocity' },
  { method: 'GET', path: '/api/summary/saleswinsbymonth', field: 'Query.dashboardSalesWinsByMonth' },
  { method: 'GET', path: '/api/summary/totalmemberships/{id}', field: 'Query.dashboardTotalMemberships' },
  { method: 'GET', path: '/api/summary/wins by sales person', field: 'Query.dashboardWinsBySalesPerson' },
  { method: 'GET', path: '/api/summary/openinvoicesqlwidget', field: 'Query.dashboardOpenInvoices' },
  { method: 'GET', path: '/api/summary/pendingapplicationsql', field: 'Query.dashboardPendingApplications' },
  { method: 'GET', path: '/api/summary/pendingwebcontentql', field: 'Query.dashboardPendingWebContent' },
  { method: 'GET', path: '/api/summary/membershipmonthly', field: 'Query.dashboardMembershipMonthly' },
  { method: 'GET', path: '/api/summary/overallmembershipstats/{id}', field: 'Query.dashboardOverallMembershipStats' },
  { method: 'GET', path: '/api/summary/overallorgstats/{id}', field: 'Query.dashboardOverallOrgStats' },
  { method: 'GET', path: '/api/summary/projectsactivecurrentmonth', field: 'Query.dashboardProjectsActiveCurrentMonth' },
  { method: 'GET', path: '/api/summary/salesfunnelstatscurrentyear', field: 'Query.dashboardSalesFunnelStatsCurrentYear' },
  { method: 'GET', path: '/api/summary/overallstats', field: 'Query.dashboardOverallStats' },
  { method: 'GET', path: '/api/summary/tenantdashboardstats', field: 'Query.dashboardTenantStats' },
];
