import { defineArea } from '../core/area.js';
import { Calendar } from '../entities/calendar.js';
import { calendarFeedRoutes } from '../http/calendars.js';
import { CalendarResolver } from '../resolvers/calendars.js';
import { calendarRoutes } from '../rest/calendars.js';
import { seedCalendars } from '../services/calendars/calendars.js';

export const calendarsArea = defineArea({
  name: 'calendars',
  entities: [Calendar],
  resolvers: [CalendarResolver],
  routes: calendarRoutes,
  rawRoutes: [calendarFeedRoutes],
  demo: seedCalendars,
});
