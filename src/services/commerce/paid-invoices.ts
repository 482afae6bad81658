import type { RequestContext } from '../../core/context.js';

/*
 * Money follows through: when a payment settles an invoice in full, what the invoice billed
 * moves with it — a store order to paid, a membership term to active, a registration order to
 * paid — in the payment's own transaction, so a payment is never recorded without its effect.
 * The area that raised the invoice says what happens, keyed by its `sourceKey` prefix
 * (`store-order:<id>` → the `store-order` handler with `<id>`), in its manifest
 * (`paidInvoiceSources`); `recordPayment` calls `settlePaidInvoice` once, on the payment that
 * takes the invoice from open to paid.
 */

/** The invoice a payment has just settled in full. */
export interface PaidInvoice {
  id: number;
  contactId: number;
  sourceKey: string;
}

/** What a paid invoice moves, run in the payment's transaction (`ctx.em`); `sourceId` is the key after the prefix. */
export type PaidInvoiceHandler = (ctx: RequestContext, invoice: PaidInvoice, sourceId: string) => Promise<void>;

const handlersByPrefix = new Map<string, PaidInvoiceHandler>();

/** Called once at assembly with every area's `paidInvoiceSources` (`areas/index.ts`). */
export function registerPaidInvoiceHandlers(sources: Iterable<[prefix: string, handler: PaidInvoiceHandler]>): void {
  for (const [prefix, handler] of sources) {
    if (handlersByPrefix.has(prefix)) throw new Error(`Two areas handle paid invoices of source "${prefix}"`);
    handlersByPrefix.set(prefix, handler);
  }
}

/** Runs the handler of the invoice's source, if any (an invoice staff raised by hand has none). */
export async function settlePaidInvoice(ctx: RequestContext, invoice: PaidInvoice): Promise<void> {
  const separator = invoice.sourceKey.indexOf(':');
  if (separator < 0) return;
  const handler = handlersByPrefix.get(invoice.sourceKey.slice(0, separator));
  await handler?.(ctx, invoice, invoice.sourceKey.slice(separator + 1));
}
