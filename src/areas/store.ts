import { defineArea } from '../core/area.js';
import {
  StoreDownloadPurchase, StoreItem, StoreItemImage, StoreItemInventory, StoreOrder, StoreOrderLine, StoreSettings, StoreSubItem,
} from '../entities/store.js';
import { storeAreaRoutes } from '../http/store.js';
import { StoreResolver } from '../resolvers/store.js';
import { storeRoutes } from '../rest/store.js';
import { seedStore } from '../services/store/store-orders.js';

/** The online store: items in four variants, inventory, gallery, orders (checkout), downloads, settings. */
export const storeArea = defineArea({
  name: 'store',
  entities: [StoreItem, StoreSubItem, StoreItemInventory, StoreItemImage, StoreOrder, StoreOrderLine, StoreDownloadPurchase, StoreSettings],
  resolvers: [StoreResolver],
  routes: storeRoutes,
  rawRoutes: [storeAreaRoutes],
  demo: seedStore,
});
