import type { RouteRow } from './route-table.js';

export const calendarRoutes: RouteRow[] = [
  { method: 'GET', path: '/api/calendars/{calendarid}', field: 'Query.calendar' },
  { method: 'POST', path: '/api/calendars/{calendarid}', field: 'Mutation.saveCalendar', body: 'input' },
  { method: 'DELETE', path: '/api/calendars/{calendarid}/{auditid}', field: 'Mutation.deleteCalendar', emptyResponse: true },
  { method: 'GET', path: '/api/calendars/items', field: 'Query.calendars' },
  { method: 'GET', path: '/api/calendars/lookup', field: 'Query.calendarLookup' },
  { method: 'GET', path: '/api/calendars/lookup/chapters/{chapterid}', field: 'Query.calendarChapterLookup' },
];
