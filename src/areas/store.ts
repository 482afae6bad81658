import { defineArea } from '../core/area.js';
import {
  StoreDownloadPurchase, StoreItem, StoreItemImage, StoreItemInventory, StoreOrder, StoreOrderLine, StoreSettings, StoreSubItem, Voucher, VoucherType,
} from '../entities/store.js';
import { storeAreaRoutes } from '../http/store.js';
import { StoreResolver } from '../resolvers/store.js';
import { VoucherResolver } from '../resolvers/vouchers.js';
import { storeRoutes } from '../rest/store.js';
import { seedStore, storeOrderPaid } from '../services/store/store-orders.js';

/** The online store: items in four variants, inventory, gallery, orders (checkout, paid with their invoice), downloads, settings, voucher types and vouchers. */
export const storeArea = defineArea({
  name: 'store',
  entities: [StoreItem, StoreSubItem, StoreItemInventory, StoreItemImage, StoreOrder, StoreOrderLine, StoreDownloadPurchase, StoreSettings, VoucherType, Voucher],
  resolvers: [StoreResolver, VoucherResolver],
  routes: storeRoutes,
  rawRoutes: [storeAreaRoutes],
  demo: seedStore,
  paidInvoiceSources: { 'store-order': storeOrderPaid },
});
