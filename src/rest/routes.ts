import { imageRoutes } from './images.js';
import { calendarRoutes } from './calendars.js';
import { loginRoutes } from './login.js';
import type { RouteRow } from './route-table.js';
import { samlServiceProviderRoutes } from './saml-service-providers.js';
import { signatureRoutes } from './signatures.js';
import { socialFeedRoutes } from './social-feeds.js';
import { vendorRoutes } from './vendors.js';
import { termsOfUseRoutes } from './terms-of-use.js';

/** All routed operations. A new area adds its rows file here. */
export const routes: RouteRow[] = [
  ...loginRoutes,
  ...vendorRoutes,
  ...signatureRoutes,
  ...samlServiceProviderRoutes,
  ...socialFeedRoutes,
  ...termsOfUseRoutes,
  ...imageRoutes,
  ...calendarRoutes,
];
