import { defineArea } from '../core/area.js';
import { Report, ReportFavorite, ReportRun } from '../entities/report.js';

/** Reporting: the report catalog, favorites, contact reports and report runs (CSV through a job). */
export const reportingArea = defineArea({
  name: 'reporting',
  entities: [Report, ReportFavorite, ReportRun],
});
