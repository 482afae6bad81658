import { defineArea } from '../core/area.js';
import { Vendor } from '../entities/vendor.js';
import { VendorResolver } from '../resolvers/vendors.js';
import { vendorRoutes } from '../rest/vendors.js';
import { seedVendors } from '../services/vendors/vendors.js';

export const vendorsArea = defineArea({
  name: 'vendors',
  entities: [Vendor],
  resolvers: [VendorResolver],
  routes: vendorRoutes,
  demo: seedVendors,
});
