import { defineArea } from '../core/area.js';
import { Invoice, InvoiceLine, Payment, SaleableItem } from '../entities/commerce.js';
import { CommerceResolver } from '../resolvers/commerce.js';
import { seedCommerce } from '../services/commerce/invoices.js';

/** Saleable items, invoices and payments: the selling model the store, events and billing share (GraphQL only). */
export const commerceArea = defineArea({
  name: 'commerce',
  entities: [SaleableItem, Invoice, InvoiceLine, Payment],
  resolvers: [CommerceResolver],
  demo: seedCommerce,
});
