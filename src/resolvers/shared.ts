import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../core/list-query.js';

export const OPTIONS_DESCRIPTION =
  `JSON object of FilterBase fields: Skip, Take (alias Top; default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}), ` +
  'Filter (case-insensitive text match), OrderBy ("Name" or "Name desc"), CalendarStartDate, CalendarEndDate, Criteria.';
