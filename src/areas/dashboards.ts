import { defineArea } from '../core/area.js';
import { DashboardProject, DashboardSalesOpportunity } from '../entities/dashboards.js';
import { DashboardRecordResolver, DashboardResolver } from '../resolvers/dashboards.js';
import { dashboardRoutes } from '../rest/dashboards.js';
import { seedDashboards } from '../services/dashboards/dashboard-records.js';

/** Dashboard summaries (figures computed from the tenant's records) and the projects and sales opportunities they count (GraphQL only). */
export const dashboardsArea = defineArea({
  name: 'dashboards',
  entities: [DashboardProject, DashboardSalesOpportunity],
  resolvers: [DashboardResolver, DashboardRecordResolver],
  routes: dashboardRoutes,
  demo: seedDashboards,
});
