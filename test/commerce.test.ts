import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { RequestContext, type RequestInfo } from '../src/core/context.js';
import { money, splitEvenly, toMoneyString } from '../src/core/money.js';
import { Contact } from '../src/entities/contact.js';
import { createInvoice } from '../src/services/commerce/invoices.js';
import { createTestTenant, graphql, startRaceServer, type TestServer, type TestTenant } from './support/harness.js';

// The shared selling model (GraphQL only): exact money, invoice numbering and billing-once under races.
let server: TestServer;
let acme: TestTenant;
let contactId: number;

const REQUEST: RequestInfo = { id: 'test', ip: '127.0.0.1', userAgent: null, tenantKey: null, host: null };
/** A service-level context for the tenant's staff, as the selling areas' own services have. */
function staffContext(tenantId = acme.id): RequestContext {
  return new RequestContext(server.app.deps, server.orm.em.fork(), { tenantId, loginId: 0, contactId: null, roles: ['staff'], credentialId: 0 }, REQUEST);
}

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'commerce');
  const em = server.orm.em.fork();
  const contact = em.create(Contact, { tenant: acme.id, kind: 'person', firstName: 'Paula', lastName: 'Payer' });
  await em.flush();
  contactId = contact.id;
});
afterAll(() => server.close());

const ITEM = 'SaleableItemId Name Price AuditId';
const INVOICE = 'InvoiceId InvoiceNumber Status Total AmountPaid Balance Lines { LineNumber Quantity UnitPrice Amount Description } Payments { Amount Method }';

async function saveItem(name: string, price: number): Promise<number> {
  const response = await graphql<{ saveSaleableItem: { SaleableItemId: number } }>(server,
    `mutation($input: SaleableItemInput!) { saveSaleableItem(saleableItemId: 0, input: $input) { ${ITEM} } }`, { input: { Name: name, ItemType: 'store', Price: price } }, acme.staffToken);
  expect(response.body.errors).toBeUndefined();
  return response.body.data!.saveSaleableItem.SaleableItemId;
}

async function raise(lines: object[]) {
  return graphql<{ raiseInvoice: { InvoiceId: number; InvoiceNumber: number; Total: number } }>(server,
    `mutation($input: InvoiceInput!) { raiseInvoice(input: $input) { ${INVOICE} } }`, { input: { ContactId: contactId, Lines: lines } }, acme.staffToken);
}

describe('money', () => {
  it('adds exactly where binary floats would not, and splits a total into payments that add up to it', () => {
    expect(toMoneyString(money('0.1').plus('0.2'))).toBe('0.30');
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(splitEvenly('100.00', 3).map((share) => share.toFixed(2))).toEqual(['33.33', '33.33', '33.34']);
    expect(splitEvenly('0.05', 4).map((share) => share.toFixed(2))).toEqual(['0.01', '0.01', '0.01', '0.02']);
  });
});

describe('saleable items and invoices over GraphQL', () => {
  it('prices lines from the saleable item, computes the total exactly, and takes payments', async () => {
    const dime = await saveItem('Sticker', 0.1);
    const fifth = await saveItem('Badge', 0.2);
    const raised = await raise([{ SaleableItemId: dime, Quantity: 3 }, { SaleableItemId: fifth, Quantity: 1 }, { SaleableItemId: dime, Quantity: 7, UnitPrice: 0.07 }]);
    expect(raised.body.errors).toBeUndefined();
    expect(raised.body.data!.raiseInvoice).toMatchObject({
      Status: 'open', Total: 0.99, AmountPaid: 0, Balance: 0.99,
      Lines: [
        { LineNumber: 1, Quantity: 3, UnitPrice: 0.1, Amount: 0.3, Description: 'Sticker' },
        { LineNumber: 2, Quantity: 1, UnitPrice: 0.2, Amount: 0.2, Description: 'Badge' },
        { LineNumber: 3, Quantity: 7, UnitPrice: 0.07, Amount: 0.49 },
      ],
    });
    const invoiceId = raised.body.data!.raiseInvoice.InvoiceId;
    const paid = await graphql<{ payInvoice: { Status: string; Balance: number } }>(server,
      `mutation { payInvoice(invoiceId: ${invoiceId}, input: { Amount: 0.98, Method: "card" }) { ${INVOICE} } }`, {}, acme.staffToken);
    expect(paid.body.data!.payInvoice).toMatchObject({ Status: 'open', Balance: 0.01 });
    const listed = await graphql<{ invoices: { InvoiceId: number }[] }>(server, `{ invoices(filter: { ContactId: ${contactId}, Status: "open" }) { ${INVOICE} } }`, {}, acme.staffToken);
    expect(listed.body.data!.invoices.map((invoice) => invoice.InvoiceId)).toContain(invoiceId);
  });

  it.each([
    [{ Name: 'Too precise', ItemType: 'store', Price: 1.005 }, 'Price'],
    [{ Name: 'Negative', ItemType: 'store', Price: -1 }, 'Price'],
    [{ Name: 'Huge', ItemType: 'store', Price: 1e12 }, 'Price'],
    [{ Name: 'Kind', ItemType: 'spaceship', Price: 1 }, 'ItemType'],
  ])('refuses the saleable item %j naming %s', async (input, field) => {
    const response = await graphql(server, 'mutation($input: SaleableItemInput!) { saveSaleableItem(saleableItemId: 0, input: $input) { SaleableItemId } }', { input }, acme.staffToken);
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.errors)).toContain(field);
  });

  it('refuses a payment beyond the balance and a line naming another tenant\'s saleable item', async () => {
    const item = await saveItem('Ticket', 5);
    const { body } = await raise([{ SaleableItemId: item, Quantity: 1 }]);
    const over = await graphql(server, `mutation { payInvoice(invoiceId: ${body.data!.raiseInvoice.InvoiceId}, input: { Amount: 5.01, Method: "card" }) { InvoiceId } }`, {}, acme.staffToken);
    expect(over.status).toBe(400);
    const other = await createTestTenant(server, 'commerce-other');
    const stranger = await graphql(server, `mutation { raiseInvoice(input: { ContactId: ${contactId}, Lines: [{ SaleableItemId: ${item}, Quantity: 1 }] }) { InvoiceId } }`, {}, other.staffToken);
    expect(stranger.status).toBe(404); // the contact is not theirs
  });
});

describe('races', () => {
  it('numbers twenty concurrent invoices 1 to n without gaps or repeats', async () => {
    const tenant = await createTestTenant(server, 'commerce-numbers');
    const em = server.orm.em.fork();
    const contact = em.create(Contact, { tenant: tenant.id, kind: 'organization', name: 'Numbers Inc' });
    await em.flush();
    const results = await Promise.all(Array.from({ length: 20 }, () => createInvoice(staffContext(tenant.id), {
      contactId: contact.id, source: 'test', lines: [{ description: 'Line', quantity: 1, unitPrice: '1.00' }],
    })));
    expect(results.map((result) => result.invoice.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
  });

  it('bills one sourceKey once, however many concurrent attempts', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => createInvoice(staffContext(), {
      contactId, source: 'test', sourceKey: 'schedule:1:2026-11-01', lines: [{ description: 'Dues', quantity: 1, unitPrice: '10.00' }],
    })));
    expect(results.filter((result) => result.created)).toHaveLength(1);
    expect(new Set(results.map((result) => result.invoice.id)).size).toBe(1);
  });

  it('adds up ten concurrent payments and refuses the one beyond the total', async () => {
    const item = await saveItem('Ten', 10);
    const { body } = await raise([{ SaleableItemId: item, Quantity: 1 }]);
    const invoiceId = body.data!.raiseInvoice.InvoiceId;
    const pay = () => graphql(server, `mutation { payInvoice(invoiceId: ${invoiceId}, input: { Amount: 1, Method: "card" }) { InvoiceId } }`, {}, acme.staffToken);
    const statuses = (await Promise.all(Array.from({ length: 11 }, pay))).map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 400)).toHaveLength(1);
    const read = await graphql<{ invoice: { Status: string; AmountPaid: number; Payments: unknown[] } }>(server, `{ invoice(invoiceId: ${invoiceId}) { ${INVOICE} } }`, {}, acme.staffToken);
    expect(read.body.data!.invoice).toMatchObject({ Status: 'paid', AmountPaid: 10 });
    expect(read.body.data!.invoice.Payments).toHaveLength(10);
  });
});

describe('the tenant of a public operation', () => {
  it('is the caller\'s own when signed in, else the one named by key or domain, else 404', async () => {
    const anonymous = (info: Partial<RequestInfo>) => new RequestContext(server.app.deps, server.orm.em.fork(), null, { ...REQUEST, ...info });
    expect(await anonymous({ tenantKey: 'commerce' }).usePublicTenant()).toBe(acme.id);
    await expect(anonymous({ tenantKey: 'no-such-tenant' }).usePublicTenant()).rejects.toMatchObject({ status: 404 });
    await expect(anonymous({}).usePublicTenant()).rejects.toMatchObject({ status: 404 });
    const other = await createTestTenant(server, 'commerce-public');
    const signedIn = new RequestContext(server.app.deps, server.orm.em.fork(), { tenantId: other.id, loginId: 0, contactId: null, roles: ['member'], credentialId: 0 }, { ...REQUEST, tenantKey: 'commerce' });
    expect(await signedIn.usePublicTenant()).toBe(other.id);
  });
});
