import { calendarRoutes } from './calendars.js';
import { loginRoutes } from './login.js';
import type { RouteRow } from './route-table.js';
import { vendorRoutes } from './vendors.js';

/** All routed operations. A new area adds its rows file here. */
export const routes: RouteRow[] = [...loginRoutes, ...vendorRoutes, ...calendarRoutes];
