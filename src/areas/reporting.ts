import { defineArea } from '../core/area.js';
import { Report, ReportFavorite, ReportRun } from '../entities/report.js';
import { reportingAreaRoutes } from '../http/reporting.js';
import { ReportingResolver } from '../resolvers/reporting.js';
import { reportingRoutes } from '../rest/reporting.js';
import { reportRunJobs } from '../services/reporting/report-runs.js';
import { seedReports } from '../services/reporting/reporting.js';

/** Reporting: the report catalog, favorites, contact reports and report runs (CSV through a job). */
export const reportingArea = defineArea({
  name: 'reporting',
  entities: [Report, ReportFavorite, ReportRun],
  resolvers: [ReportingResolver],
  routes: reportingRoutes,
  rawRoutes: [reportingAreaRoutes],
  jobs: reportRunJobs(),
  demo: seedReports,
});
