import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import sharp from 'sharp';
import { Membership, MembershipType } from '../src/entities/index.js';
import { createTestTenant, expectExactlyOneSucceeds, expectStatementsIndependentOfPageSize, graphql, rest, startRaceServer, type HttpResult, type TestServer, type TestTenant } from './support/harness.js';

// 401/403 on every operation, tenant isolation and the fuzz: test/sweeps.test.ts. Here: the store's own rules.
let server: TestServer;
let acme: TestTenant;
let memberContactId: number;

beforeAll(async () => {
  server = await startRaceServer();
  acme = await createTestTenant(server, 'store');
  const [row] = await server.orm.em.fork().getConnection().execute<{ contact_id: number }[]>(
    'SELECT contact_id FROM login WHERE tenant_id = ? AND email = ?', [acme.id, 'member@store.example'],
  );
  memberContactId = row.contact_id;
}, 60_000);
afterAll(() => server.close());

const staff = () => acme.staffToken;
const post = (path: string, body: unknown, token = staff()) => rest(server, 'POST', path, { token, body });
const get = (path: string, token = staff()) => rest(server, 'GET', path, { token });

async function createItem(variant: 0 | 1 | 2 | 3, body: Record<string, unknown>): Promise<number> {
  const response = await post(`/api/store/storeitems/${variant}/save`, { StoreItemId: 0, ...body });
  expect({ status: response.status, body: response.status === 200 ? null : response.body }).toEqual({ status: 200, body: null });
  return response.body.StoreItemId as number;
}

const CHECKOUT = `mutation($input: StoreCheckoutInput!) { checkoutStoreOrder(input: $input) {
  StorePurchaseId GrandTotal TaxAmount ShippingAmount Subtotal InvoiceId PurchaseStatusId AuditId
  OrderStoreItemList { StoreItemId StoreSubItemId Quantity Backordered UnitPrice Amount }
} }`;

function checkout(items: { StoreItemId: number; StoreSubItemId?: number; Quantity: number }[], token = acme.memberToken, extra: Record<string, unknown> = {}) {
  return graphql(server, CHECKOUT, { input: { Items: items, ...extra } }, token);
}

async function bought(items: { StoreItemId: number; StoreSubItemId?: number; Quantity: number }[], extra: Record<string, unknown> = {}) {
  const response = await checkout(items, acme.memberToken, extra);
  expect(response.body.errors).toBeUndefined();
  return response.body.data.checkoutStoreOrder;
}

async function remaining(storeItemId: number): Promise<number | null> {
  const [row] = await server.orm.em.fork().getConnection().execute<{ remaining: number | null }[]>('SELECT remaining FROM store_item WHERE id = ?', [storeItemId]);
  return row.remaining;
}

async function setSettings(body: Record<string, unknown>) {
  const current = await get('/api/store/storesettings');
  const saved = await post('/api/store/storesettings', { ...body, AuditId: current.body.AuditId });
  expect(saved.status).toBe(200);
}

async function upload(path: string, bytes: Buffer, filename: string, type: string, token = staff()): Promise<HttpResult> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  const response = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : null };
}

async function download(path: string, token: string) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** A voucher type to sell vouchers of (StoreItemV2.VoucherTypeId must name an active one). */
async function voucherType(name: string): Promise<number> {
  const response = await post('/api/setup/vouchertypes/0', { Name: name, ValueType: 'amount', Value: 10 });
  expect(response.status).toBe(200);
  return response.body.VoucherTypeId as number;
}

/** Pays an order's invoice in full (payInvoice, GraphQL): the order becomes Paid. */
async function pay(order: { InvoiceId: number; GrandTotal: number }): Promise<void> {
  const paid = await graphql(server, 'mutation($id: Int!, $amount: Float!) { payInvoice(invoiceId: $id, input: { Amount: $amount, Method: "card" }) { Status } }',
    { id: order.InvoiceId, amount: order.GrandTotal }, staff());
  expect(paid.body.data?.payInvoice).toEqual({ Status: 'paid' });
}

const png = (color: string) => sharp({ create: { width: 20, height: 20, channels: 3, background: color } }).png().toBuffer();

describe('store items over REST', () => {
  it('creates, reads, lists and updates a product with sub-items; another variant\'s path is 404', async () => {
    const apparel = await post('/api/categorylists/0', { CategoryTypeId: '3', Name: 'Apparel', Items: [{ Name: 'Hoodies' }] });
    const category = String((await get(`/api/categorylists/${apparel.body.CategoryListId}/0/items`, staff())).body.Items[0].CategoryItemId);
    const noCategory = await post('/api/store/storeitems/0/save', { StoreItemId: 0, Name: 'Nowhere', Price: 1, CategoryItemId: '987654' });
    expect([noCategory.status, noCategory.body.errors[0].field]).toEqual([400, 'CategoryItemId']);
    const id = await createItem(0, {
      Name: 'Hoodie', Price: 40, ShortDescription: 'Warm', InventoryTrackingMethodTypeId: '2', Settings: '{"colour":"navy"}', CategoryItemId: category,
      SubItems: [{ Name: 'Small', InventoryRemaining: '4' }, { Name: 'XL', Price: 44.5, InventoryRemaining: '2' }],
    });
    const read = await get(`/api/store/storeitems/0/${id}`, acme.memberToken);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      StoreItemId: id, Name: 'Hoodie', ItemType: 'Product', Price: 40, HasSubItems: true, InventoryTrackingMethodTypeId: '2', InventoryRemaining: '6',
      TrackInventory: true, CategoryItemId: category, Settings: '{"colour":"navy"}', SettingsJson: '{"colour":"navy"}', ContactId: null, Images: [], AuditId: 1,
      SubItems: [{ Name: 'Small', Price: null, InventoryRemaining: '4' }, { Name: 'XL', Price: 44.5, InventoryRemaining: '2' }],
    });
    for (const variant of [1, 2, 3]) expect((await get(`/api/store/storeitems/${variant}/${id}`)).status).toBe(404);
    expect((await post('/api/store/storeitems/1/save', { StoreItemId: id, Name: 'x', Price: 1, PostSubmitDownloadFile: '1' })).status).toBe(400); // no such file
    expect((await post('/api/store/storeitems/3/save', { StoreItemId: id, Name: 'x', Price: 1, InfoMessage: 'hi' })).status).toBe(404);

    const subItems = await get(`/api/store/storeitems/${id}/subitems`, acme.memberToken);
    expect(subItems.body.map((choice: { Name: string }) => choice.Name)).toEqual(['Small', 'XL']);

    const listed = await post('/api/store/storeitems', { StoreItemType: '0', Filter: 'hoodie' }, acme.memberToken);
    expect(listed.body).toMatchObject({
      TotalRecordAvailable: '1',
      Results: [{ StoreItemId: id, ProductName: 'Hoodie', ItemType: '0', ItemTypeStr: 'Product', MinPrice: '40.00', MaxPrice: '44.50', PriceDescription: '40.00 – 44.50', InventoryRemaining: '6' }],
    });
    expect((await post('/api/store/storeitems', { StoreItemType: 'Voucher', Filter: 'hoodie' })).body.TotalRecordAvailable).toBe('0');
    expect((await post('/api/store/storeitems', { StoreItemType: '9' })).status).toBe(400);

    // Update: a known sub-item keeps its stock (never overwritten by a save), a new one is added, a left-out one removed.
    const small = read.body.SubItems[0].StoreSubItemId as number;
    const updated = await post('/api/store/storeitems/0/save', {
      ...read.body, Name: 'Hoodie 2', AuditId: 1, SubItems: [{ StoreSubItemId: small, Name: 'S', InventoryRemaining: '999' }, { Name: 'M', InventoryRemaining: '3' }],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.SubItems).toEqual([
      { StoreSubItemId: small, Name: 'S', Price: null, InventoryRemaining: '4' }, { StoreSubItemId: expect.any(Number), Name: 'M', Price: null, InventoryRemaining: '3' },
    ]);
    expect((await post('/api/store/storeitems/0/save', { ...read.body, AuditId: 1 })).status).toBe(409);
  });

  it('applies each variant\'s own rules with 400s naming the field', async () => {
    const cases: [number, Record<string, unknown>, string][] = [
      [0, { Name: 'P', Price: -1 }, 'Price'],
      [0, { Name: 'P', Price: 1.005 }, 'Price'],
      [0, { Name: 'P', Price: 1, AvailableDate: '2026-05-02', EndDate: '2026-05-01' }, 'EndDate'],
      [0, { Name: 'P', Price: 1, AvailableDate: '2026-02-30' }, 'AvailableDate'],
      [0, { Name: '', Price: 1 }, 'Name'],
      [0, { Name: 'P', Price: 1, InventoryTrackingMethodTypeId: '2' }, 'InventoryTrackingMethodTypeId'],
      [0, { Name: 'P', Price: 1, ContactId: '999999' }, 'ContactId'],
      [0, { Name: 'P', Price: 1, MembershipTypes: [999999] }, 'MembershipTypes'],
      [0, { Name: 'P', Price: 1, Settings: { colour: 'navy' } }, 'Settings'],
      [1, { Name: 'D', Price: 1 }, 'PostSubmitDownloadFile'],
      [1, { Name: 'D', Price: 1, PostSubmitDownloadFile: '999999' }, 'PostSubmitDownloadFile'],
      [2, { Name: 'V', Price: 1 }, 'VoucherTypeId'],
      [2, { Name: 'V', Price: 1, VoucherTypeId: 0 }, 'VoucherTypeId'],
      [3, { Name: 'I', Price: 1 }, 'InfoMessage'],
      [3, { Name: 'I', Price: 1, InfoMessage: '  ' }, 'InfoMessage'],
      [1, { Name: 'D', Price: 1, PostSubmitDownloadFile: '1', InventoryTrackingMethodTypeId: '2' }, 'InventoryTrackingMethodTypeId'],
    ];
    for (const [variant, body, field] of cases) {
      const response = await post(`/api/store/storeitems/${variant}/save`, body);
      expect({ variant, body, status: response.status, type: response.headers.get('content-type') }).toEqual({ variant, body, status: 400, type: expect.stringContaining('problem+json') });
      expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
  });

  it('saves the display order and lists membership add-ons', async () => {
    const em = server.orm.em.fork();
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Gold' });
    await em.flush();
    const a = await createItem(3, { Name: 'Addon A', Price: 5, InfoMessage: 'Thanks', MembershipTypes: [type.id] });
    const b = await createItem(3, { Name: 'Addon B', Price: 6, InfoMessage: 'Thanks', MembershipTypes: [type.id] });
    expect((await post('/api/store/membership/addons/saveorder', [{ StoreItemId: b }, { StoreItemId: a }])).status).toBe(200);
    const addons = await post('/api/store/membership/addons', { Filter: 'addon' }, acme.memberToken);
    expect(addons.body.Results.map((row: { StoreItemId: number }) => row.StoreItemId)).toEqual([b, a]);
    expect((await get('/api/store/lookup/membership/addons', acme.memberToken)).body.map((choice: { Id: number }) => choice.Id)).toEqual([b, a]);
    expect((await post('/api/store/storeitems/saveorder', [{ StoreItemId: a, DisplayOrder: '1' }, { StoreItemId: b, DisplayOrder: '2' }])).status).toBe(200);
    expect((await post('/api/store/storeitems', { Filter: 'addon' })).body.Results.map((row: { StoreItemId: number }) => row.StoreItemId)).toEqual([a, b]);
    const lookup = await get('/api/store/lookup/storeitems', acme.memberToken);
    expect(lookup.body).toEqual(expect.arrayContaining([expect.objectContaining({ Id: a, Name: 'Addon A', ExtraData: 'Information' })]));
  });

  it('erases an item nothing was bought of, and retires one with orders (404 afterwards, kept for its orders)', async () => {
    const type = await voucherType('Erase or retire');
    const unsold = await createItem(2, { Name: 'Unsold voucher', Price: 10, VoucherTypeId: type });
    expect((await rest(server, 'DELETE', `/api/store/storeitems/${unsold}`, { token: staff() })).status).toBe(200);
    expect((await server.orm.em.fork().getConnection().execute('SELECT id FROM store_item WHERE id = ?', [unsold])).length).toBe(0);

    const sold = await createItem(2, { Name: 'Sold voucher', Price: 10, VoucherTypeId: type });
    const order = await bought([{ StoreItemId: sold, Quantity: 1 }]);
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, () => () => rest(server, 'DELETE', `/api/store/storeitems/${sold}`, { token: staff() })), [404]);
    expect((await get(`/api/store/storeitems/2/${sold}`)).status).toBe(404);
    const [row] = await server.orm.em.fork().getConnection().execute<{ retired_at: Date | null; is_active: boolean }[]>('SELECT retired_at, is_active FROM store_item WHERE id = ?', [sold]);
    expect(row).toEqual({ retired_at: expect.anything(), is_active: false });
    expect((await get(`/api/store/storeorders/${order.StorePurchaseId}`)).body.OrderStoreItemList[0]).toMatchObject({ StoreItemId: sold, ProductName: 'Sold voucher' });
    expect((await checkout([{ StoreItemId: sold, Quantity: 1 }])).body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('checkout and orders', () => {
  it('prices the cart on the server, exactly: tax and shipping from the settings, billed once through an invoice', async () => {
    await setSettings({ TaxRate: 10, ShippingFlatRate: 5, ShippingPerItem: 0.1, ExemptTaxOnShipping: true });
    // 0.10 + 0.20 + 1.15 in binary floats is 1.4500000000000002, and 10% of 1.15 is 0.11499999999999999 (→ 0.11): exact is 0.115 → 0.12.
    const a = await createItem(0, { Name: 'Pin', Price: 0.1 });
    const b = await createItem(0, { Name: 'Badge', Price: 0.2 });
    const c = await createItem(3, { Name: 'Donation', Price: 1.15, InfoMessage: 'Thank you' });
    const order = await bought([{ StoreItemId: a, Quantity: 1 }, { StoreItemId: b, Quantity: 1 }, { StoreItemId: c, Quantity: 1 }]);
    // Shipping: 5 + 0.10 × 2 shipped units = 5.20 (not taxed: ExemptTaxOnShipping). Tax: 10% of 1.45 = 0.145 → 0.15.
    expect(order).toMatchObject({ Subtotal: 1.45, ShippingAmount: 5.2, TaxAmount: 0.15, GrandTotal: 6.8, PurchaseStatusId: 'Pending' });
    const only = await bought([{ StoreItemId: c, Quantity: 1 }], { ShippingOption: 'Pickup' });
    expect(only).toMatchObject({ Subtotal: 1.15, ShippingAmount: 0, TaxAmount: 0.12, GrandTotal: 1.27 });

    const invoice = await graphql(server, 'query($id: Int!) { invoice(invoiceId: $id) { Total ContactId Lines { Description Quantity UnitPrice Amount } } }', { id: order.InvoiceId }, staff());
    expect(invoice.body.data.invoice).toMatchObject({ Total: 6.8, ContactId: memberContactId });
    expect(invoice.body.data.invoice.Lines.map((line: { Description: string; Amount: number }) => [line.Description, line.Amount]).sort())
      .toEqual([['Badge', 0.2], ['Donation', 1.15], ['Pin', 0.1], ['Shipping', 5.2], ['Tax', 0.15]]);
    const [{ count }] = await server.orm.em.fork().getConnection().execute<{ count: string }[]>('SELECT count(*) FROM invoice WHERE source_key = ?', [`store-order:${order.StorePurchaseId}`]);
    expect(count).toBe('1');
    await setSettings({ TaxRate: 0, ShippingFlatRate: 0, ShippingPerItem: 0, ExemptTaxOnShipping: false });
  });

  it('taxes the taxable share of shipping unless IncludeNonTaxableItemsInTaxableShippingAmmount', async () => {
    const em = server.orm.em.fork();
    const [exempt] = await em.getConnection().execute<{ id: number }[]>(
      `INSERT INTO saleable_item (tenant_id, name, item_type, price, taxable) VALUES (?, 'Books', 'store', '10.00', false) RETURNING id`, [acme.id],
    );
    const book = await createItem(0, { Name: 'Book', Price: 10, SaleableItemId: String(exempt.id) });
    const mug = await createItem(0, { Name: 'Mug', Price: 10 });
    await setSettings({ TaxRate: 8.25, ShippingFlatRate: 4, ShippingPerItem: 0 });
    // Taxable: the mug (10) and half the shipping (2): 8.25% of 12 = 0.99.
    expect(await bought([{ StoreItemId: book, Quantity: 1 }, { StoreItemId: mug, Quantity: 1 }])).toMatchObject({ Subtotal: 20, ShippingAmount: 4, TaxAmount: 0.99, GrandTotal: 24.99 });
    await setSettings({ IncludeNonTaxableItemsInTaxableShippingAmmount: true });
    // All of the shipping: 8.25% of 14 = 1.155 → 1.16.
    expect(await bought([{ StoreItemId: book, Quantity: 1 }, { StoreItemId: mug, Quantity: 1 }])).toMatchObject({ TaxAmount: 1.16, GrandTotal: 25.16 });
    await setSettings({ TaxRate: 0, ShippingFlatRate: 0, IncludeNonTaxableItemsInTaxableShippingAmmount: false });
  });

  it('refuses a cart it cannot sell: unknown item, below the minimum, a missing sub-item, staff without a buyer', async () => {
    const min = await createItem(0, { Name: 'Stickers', Price: 1, MinimumQuantity: '5' });
    const sized = await createItem(0, { Name: 'Cap', Price: 12, SubItems: [{ Name: 'One size' }] });
    const cases: [Record<string, unknown>[], string][] = [
      [[{ StoreItemId: 999999, Quantity: 1 }], 'Items[0].StoreItemId'],
      [[{ StoreItemId: min, Quantity: 4 }], 'Items[0].Quantity'],
      [[{ StoreItemId: sized, Quantity: 1 }], 'Items[0].StoreSubItemId'],
      [[{ StoreItemId: min, Quantity: 0 }], 'Items.0.Quantity'],
    ];
    for (const [items, field] of cases) {
      const response = await graphql(server, CHECKOUT, { input: { Items: items } }, acme.memberToken);
      expect(response.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(JSON.stringify(response.body.errors?.[0].extensions.errors)).toContain(field);
    }
    const noBuyer = await checkout([{ StoreItemId: min, Quantity: 5 }], staff());
    expect(noBuyer.body.errors?.[0].extensions.errors?.[0].field).toBe('ContactId');
    const forMember = await checkout([{ StoreItemId: min, Quantity: 5 }], staff(), { ContactId: memberContactId });
    expect(forMember.body.data.checkoutStoreOrder.Subtotal).toBe(5);
  });

  it('lists, reads and updates orders: status, shipping, notes; the totals are always the server\'s', async () => {
    const item = await createItem(0, { Name: 'Poster', Price: 15, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '10' });
    const order = await bought([{ StoreItemId: item, Quantity: 2 }], { City: 'Springfield', Notes: 'Leave at door' });
    expect(await remaining(item)).toBe(8);
    const id = order.StorePurchaseId as number;

    const listed = await post('/api/store/storeorders', { Filter: 'springfield', Criteria: { PurchaseStatusId: 'Pending' } });
    expect(listed.body).toMatchObject({ TotalRecordAvailable: '1', Results: [{ StorePurchaseId: id, GrandTotal: 30, City: 'Springfield' }], ModelItems: [{ Id: memberContactId }] });
    expect((await post('/api/store/storeorders', { Filter: 'springfield' }, acme.memberToken)).body.TotalRecordAvailable).toBe('1'); // the member's own

    const read = await get(`/api/store/storeorders/${id}`);
    expect(read.body).toMatchObject({ StorePurchaseId: id, ShippingOption: 'Ship', Notes: 'Leave at door', OrderStoreItemList: [{ ProductName: 'Poster', Quantity: 2, Amount: 30 }] });
    // Not paid yet: staff cannot ship it (Paid follows the payment of its invoice).
    const unpaid = await post(`/api/store/storeorders/${id}`, { ...read.body, PurchaseStatusId: 'Shipped' });
    expect({ status: unpaid.status, field: unpaid.body.errors?.[0]?.field }).toEqual({ status: 409, field: 'PurchaseStatusId' });
    const updated = await post(`/api/store/storeorders/${id}`, {
      ...read.body, Notes: 'Sent by courier', Address1: '1 Main St', GrandTotal: 0.01, TaxAmount: 99, ShippingAmount: 99,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ PurchaseStatusId: 'Pending', Notes: 'Sent by courier', Address1: '1 Main St', City: 'Springfield', GrandTotal: 30, TaxAmount: 0, ShippingAmount: 0 });
    expect((await post(`/api/store/storeorders/${id}`, { ...read.body, Notes: 'stale' })).status).toBe(409);
    expect((await post(`/api/store/storeorders/${id}`, { PurchaseStatusId: 'Lost' })).body.errors[0].field).toBe('PurchaseStatusId');

    // Cancelling puts the stock back and voids the unpaid invoice; a cancelled order is not reopened.
    expect((await post(`/api/store/storeorders/${id}`, { PurchaseStatusId: 'Cancelled' })).status).toBe(200);
    expect(await remaining(item)).toBe(10);
    const [invoice] = await server.orm.em.fork().getConnection().execute<{ status: string }[]>(
      'SELECT status FROM invoice WHERE tenant_id = ? AND source_key = ?', [acme.id, `store-order:${id}`]);
    expect(invoice.status).toBe('void');
    expect((await post(`/api/store/storeorders/${id}`, { PurchaseStatusId: 'Paid' })).status).toBe(409);

    // Another member's order does not exist for this member.
    const other = await createTestTenant(server, 'store-other');
    expect((await get(`/api/store/storeorders/${id}`, other.staffToken)).status).toBe(404);
    const staffOrder = await checkout([{ StoreItemId: item, Quantity: 1 }], staff(), { ContactId: (await staffContact()) });
    expect((await get(`/api/store/storeorders/${staffOrder.body.data.checkoutStoreOrder.StorePurchaseId}`, acme.memberToken)).status).toBe(404);
  });
});

async function staffContact(): Promise<number> {
  const [row] = await server.orm.em.fork().getConnection().execute<{ contact_id: number }[]>('SELECT contact_id FROM login WHERE tenant_id = ? AND email = ?', [acme.id, 'staff@store.example']);
  return row.contact_id;
}

describe('inventory', () => {
  it('never oversells: of 12 concurrent buyers of the last 3 units, exactly 3 succeed and the count stops at 0', async () => {
    const item = await createItem(0, { Name: 'Last units', Price: 9.99, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '3' });
    const results = await Promise.all(Array.from({ length: 12 }, () => checkout([{ StoreItemId: item, Quantity: 1 }])));
    const succeeded = results.filter((result) => result.body.data?.checkoutStoreOrder);
    expect(succeeded).toHaveLength(3);
    for (const result of results.filter((candidate) => !candidate.body.data?.checkoutStoreOrder)) {
      expect({ status: result.status, code: result.body.errors?.[0].extensions.code }).toEqual({ status: 409, code: 'CONFLICT' });
    }
    expect(await remaining(item)).toBe(0);
    const [{ count }] = await server.orm.em.fork().getConnection().execute<{ count: string }[]>('SELECT count(*) FROM store_order_line WHERE store_item_id = ?', [item]);
    expect(count).toBe('3');
  });

  it('never oversells a sub-item either, and back-orders only where AllowBackorder', async () => {
    const shirt = await createItem(0, { Name: 'Tee', Price: 20, InventoryTrackingMethodTypeId: '2', SubItems: [{ Name: 'M', InventoryRemaining: '2' }] });
    const medium = (await get(`/api/store/storeitems/0/${shirt}`)).body.SubItems[0].StoreSubItemId as number;
    const results = await Promise.all(Array.from({ length: 8 }, () => checkout([{ StoreItemId: shirt, StoreSubItemId: medium, Quantity: 1 }])));
    expect(results.filter((result) => result.body.data?.checkoutStoreOrder)).toHaveLength(2);
    expect((await get(`/api/store/storeitems/0/${shirt}`)).body.SubItems[0].InventoryRemaining).toBe('0');

    const strict = await createItem(0, { Name: 'Strict', Price: 5, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '1' });
    const refused = await checkout([{ StoreItemId: strict, Quantity: 3 }]);
    expect(refused.body.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', errors: [{ field: 'Items[0].Quantity', message: 'only 1 left' }] });
    expect(await remaining(strict)).toBe(1);

    const relaxed = await createItem(0, { Name: 'Relaxed', Price: 5, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '1', AllowBackorder: true });
    const order = await bought([{ StoreItemId: relaxed, Quantity: 3 }]);
    expect(order.OrderStoreItemList[0]).toMatchObject({ Quantity: 3, Backordered: 2 });
    expect(await remaining(relaxed)).toBe(0);
  });

  it('records receipts (GraphQL), reads them and the purchase history', async () => {
    const item = await createItem(0, { Name: 'Notebook', Price: 3.5, InventoryTrackingMethodTypeId: '1', InventoryRemaining: '0' });
    const receipt = await graphql(server, `mutation($input: StoreItemInventoryInput!) { saveStoreItemInventory(input: $input) { StoreItemInventoryId Quantity QuantityAvailable PurchasePrice } }`,
      { input: { StoreItemId: item, PurchaseDate: '2026-03-01', PurchasePrice: 1.25, Quantity: 20 } }, staff());
    const receiptId = receipt.body.data.saveStoreItemInventory.StoreItemInventoryId as number;
    expect(receipt.body.data.saveStoreItemInventory).toMatchObject({ Quantity: 20, QuantityAvailable: 20, PurchasePrice: 1.25 });
    await bought([{ StoreItemId: item, Quantity: 4 }]);
    const read = await get(`/api/store/inventory/${receiptId}`);
    expect(read.body).toEqual({
      StoreItemInventoryId: receiptId, StoreItemId: item, HasSubItems: false, StoreSubItemId: null, PurchaseDate: '2026-03-01', PurchasePrice: 1.25, Quantity: 20, QuantityAvailable: 16,
    });
    const history = await get(`/api/store/inventory/${item}/storeitempurchasehistory`);
    expect(history.body).toMatchObject({ StoreItemId: item, Items: [{ ContactId: memberContactId, Quantity: 4, UnitPrice: 3.5, Amount: 14, PurchaseStatusId: 'Pending' }] });
    const untracked = await createItem(0, { Name: 'Untracked', Price: 1 });
    const refused = await graphql(server, `mutation($input: StoreItemInventoryInput!) { saveStoreItemInventory(input: $input) { Quantity } }`,
      { input: { StoreItemId: untracked, PurchaseDate: '2026-03-01', PurchasePrice: 1, Quantity: 1 } }, staff());
    expect(refused.body.errors?.[0].extensions.errors?.[0].field).toBe('StoreItemId');
    expect((await get('/api/store/inventory/999999')).status).toBe(404);
  });
});

describe('gallery', () => {
  it('attaches uploaded images, replaces one (OldImageId, OldFileId), reorders and removes them', async () => {
    const item = await createItem(0, { Name: 'Gallery item', Price: 1 });
    const first = (await upload('/api/images/upload', await png('#f00'), 'red.png', 'image/png')).body.FileId as number;
    const second = (await upload('/api/images/upload', await png('#0f0'), 'green.png', 'image/png')).body.FileId as number;
    const a = await post(`/api/store/${item}/preimage/0/${first}`, { Title: 'Front', Caption: 'Red', CropX: 0, CropY: 0, CropWidth: 10, CropHeight: 10 });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ Title: 'Front', Caption: 'Red', FileId: first, GalleryOrder: 1, Url: `/api/images/image/${a.body.ImageId}` });
    const b = await post(`/api/store/${item}/preimage/0/${second}`, { Title: 'Back' });
    expect(b.body.GalleryOrder).toBe(2);

    const third = (await upload('/api/images/upload', await png('#00f'), 'blue.png', 'image/png')).body.FileId as number;
    expect((await post(`/api/store/${item}/preimage/0/${third}`, { OldImageId: a.body.ImageId, OldFileId: second })).status).toBe(409);
    const replaced = await post(`/api/store/${item}/preimage/0/${third}`, { OldImageId: a.body.ImageId, OldFileId: first, Title: 'Front (blue)' });
    expect(replaced.body).toMatchObject({ ImageId: a.body.ImageId, FileId: third, Title: 'Front (blue)', GalleryOrder: 1 });

    expect((await post(`/api/store/${item}/preimage/order`, [{ ImageId: b.body.ImageId }])).status).toBe(200);
    const images = (await get(`/api/store/storeitems/0/${item}`)).body.Images;
    expect(images.map((image: { ImageId: number }) => image.ImageId)).toEqual([b.body.ImageId, a.body.ImageId]);
    expect((await post(`/api/store/${item}/preimage/order`, [{ ImageId: 999999 }])).body.errors[0].field).toBe('[0].ImageId');

    const other = await createItem(0, { Name: 'Other item', Price: 1 });
    expect((await rest(server, 'DELETE', `/api/store/${other}/preimage/${b.body.ImageId}`, { token: staff() })).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/store/${item}/preimage/${b.body.ImageId}`, { token: staff() })).status).toBe(200);
    expect((await get(`/api/images/image/${b.body.ImageId}`)).status).toBe(404);
    expect((await get(`/api/store/storeitems/0/${item}`)).body.Images.map((image: { ImageId: number }) => image.ImageId)).toEqual([a.body.ImageId]);
  });
});

describe('downloads', () => {
  it('sells a file: uploaded, bought, listed, downloaded; expired links and missing memberships refused; delete revokes', async () => {
    const bytes = Buffer.from('%PDF-1.4 a small guide');
    const file = await upload('/api/store/downloadfiles/upload', bytes, 'guide.pdf', 'application/pdf');
    expect(file.body).toMatchObject({ FileId: expect.any(Number), MediaType: 'application/pdf', Name: 'guide.pdf' });
    expect((await upload('/api/store/downloadfiles/upload', bytes, 'guide.pdf', 'application/pdf', acme.memberToken)).status).toBe(403);
    expect((await get(`/api/images/file/${file.body.FileId}`)).status).toBe(404); // never served as an image

    const item = await createItem(1, { Name: 'Guide', Price: 4.99, PostSubmitDownloadFile: String(file.body.FileId), FileExpirationDate: '2099-12-31', RequireActiveMembership: true });
    expect((await get(`/api/store/storeitems/1/${item}`)).body).toMatchObject({ ItemType: 'Download', PostSubmitDownloadFile: String(file.body.FileId), RequireActiveMembership: true });
    const order = await bought([{ StoreItemId: item, Quantity: 1 }]);
    expect(order.ShippingAmount).toBe(0);

    const listed = await post('/api/store/storedownloads', { Criteria: { StoreItemId: item } }, acme.memberToken);
    expect(listed.body).toMatchObject({ TotalRecordAvailable: '1', Results: [{ ProductName: 'Guide', ContactId: memberContactId, IsExpired: false, FileExpirationDate: '2099-12-31' }] });
    const purchase = listed.body.Results[0];

    const unpaid = await download(purchase.DownloadUrl, acme.memberToken);
    expect({ status: unpaid.status, detail: JSON.parse(unpaid.bytes.toString()).detail }).toEqual({ status: 403, detail: expect.stringContaining('not paid') });
    await pay(order);
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(403); // no membership in good standing yet
    const em = server.orm.em.fork();
    const type = em.create(MembershipType, { tenant: acme.id, name: 'Reader' });
    em.create(Membership, { tenant: acme.id, contact: memberContactId, membershipType: type, startDate: '2020-01-01', status: 'active' });
    await em.flush();
    const fetched = await download(purchase.DownloadUrl, acme.memberToken);
    expect({ status: fetched.status, type: fetched.headers.get('content-type'), bytes: fetched.bytes.toString() }).toEqual({ status: 200, type: 'application/pdf', bytes: bytes.toString() });
    expect(fetched.headers.get('content-disposition')).toContain('attachment');

    await em.getConnection().execute('UPDATE store_download_purchase SET expires_on = ? WHERE id = ?', ['2020-01-01', purchase.StoreItemDigitalDownloadPurchaseId]);
    const expired = await download(purchase.DownloadUrl, acme.memberToken);
    expect(expired.status).toBe(403);
    expect((await post('/api/store/storedownloads', { Criteria: { StoreItemId: item } })).body.Results[0].IsExpired).toBe(true);

    expect((await rest(server, 'DELETE', `/api/store/storedownloads/${purchase.StoreItemDigitalDownloadPurchaseId}`, { token: staff() })).status).toBe(200);
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(404);
    expect((await rest(server, 'DELETE', `/api/store/storedownloads/${purchase.StoreItemDigitalDownloadPurchaseId}`, { token: staff() })).status).toBe(404);
  });
});

describe('settings', () => {
  it('reads defaults, saves, and refuses a stale AuditId', async () => {
    const other = await createTestTenant(server, 'store-settings');
    const defaults = await get('/api/store/storesettings', other.memberToken);
    expect(defaults.body).toMatchObject({ AuditId: 0, TaxRate: 0, RequirePhone: false, Width: 1200 });
    const saved = await post('/api/store/storesettings', { StoreDescription: 'Our shop', RequirePhone: true, TaxRate: 7.125, ShippingFlatRate: 3.5 }, other.staffToken);
    expect(saved.status).toBe(200);
    const read = await get('/api/store/storesettings', other.staffToken);
    expect(read.body).toMatchObject({ StoreDescription: 'Our shop', RequirePhone: true, TaxRate: 7.125, ShippingFlatRate: 3.5, AuditId: 1 });
    expect((await post('/api/store/storesettings', { StoreDescription: 'Late', AuditId: 0 }, other.staffToken)).status).toBe(409);
    expect((await post('/api/store/storesettings', { TaxRate: 101 }, other.staffToken)).body.errors[0].field).toBe('TaxRate');
    expect((await post('/api/store/storesettings', { ShippingFlatRate: 0.001 }, other.staffToken)).body.errors[0].field).toBe('ShippingFlatRate');
  });
});

describe('store over GraphQL', () => {
  it('runs the item, list and order operations', async () => {
    const type = await voucherType('GraphQL vouchers');
    const saved = await graphql(server, `mutation($input: StoreItemV2Input!) { saveStoreItemV2(input: $input) { StoreItemId ItemType VoucherTypeId AuditId } }`,
      { input: { Name: 'GraphQL voucher', Price: 25, VoucherTypeId: type } }, staff());
    const id = saved.body.data.saveStoreItemV2.StoreItemId as number;
    expect(saved.body.data.saveStoreItemV2).toMatchObject({ ItemType: 'Voucher', VoucherTypeId: type, AuditId: 1 });
    const read = await graphql(server, `query($id: Int!) {
      storeItemV2(storeItemId: $id) { Name Price }
      storeItems(filter: { Filter: "GraphQL voucher", StoreItemType: "2" }) { TotalRecordAvailable Results { StoreItemId ItemTypeStr } }
      storeSettings { AuditId }
    }`, { id }, acme.memberToken);
    expect(read.body.data).toMatchObject({ storeItemV2: { Name: 'GraphQL voucher', Price: 25 }, storeItems: { TotalRecordAvailable: '1', Results: [{ StoreItemId: id, ItemTypeStr: 'Voucher' }] } });
    const wrongVariant = await graphql(server, 'query($id: Int!) { storeItemV0(storeItemId: $id) { Name } }', { id }, acme.memberToken);
    expect(wrongVariant.body.errors?.[0].extensions.code).toBe('NOT_FOUND');
    const order = await bought([{ StoreItemId: id, Quantity: 2 }]);
    const orders = await graphql(server, `query($id: Int!) {
      storeOrder(storePurchaseId: $id) { GrandTotal OrderStoreItemList { Quantity } }
      storeOrders(filter: { Criteria: { ContactId: ${memberContactId} } }) { TotalRecordAvailable }
      storeDownloads { TotalRecordAvailable }
    }`, { id: order.StorePurchaseId }, acme.memberToken);
    expect(orders.body.data.storeOrder).toEqual({ GrandTotal: 50, OrderStoreItemList: [{ Quantity: 2 }] });
    const byHand = await graphql(server, `mutation($id: Int!) { updateStoreOrder(storePurchaseId: $id, input: { PurchaseStatusId: "Paid" }) { PurchaseStatusId } }`, { id: order.StorePurchaseId }, staff());
    expect(byHand.body.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', errors: [{ field: 'PurchaseStatusId' }] });
    await pay(order);
    const updated = await graphql(server, `mutation($id: Int!) { updateStoreOrder(storePurchaseId: $id, input: { PurchaseStatusId: "Completed" }) { PurchaseStatusId GrandTotal } }`, { id: order.StorePurchaseId }, staff());
    expect(updated.body.data.updateStoreOrder).toEqual({ PurchaseStatusId: 'Completed', GrandTotal: 50 });
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteStoreItem(storeItemId: $id) }', { id }, staff());
    expect(deleted.body.data.deleteStoreItem).toBe(id);
  });
});

describe('the remaining operations over GraphQL', () => {
  it('saves every variant, orders, gallery, settings, lookups, inventory and revokes a download', async () => {
    const q = async (document: string, variables: Record<string, unknown> = {}, token = staff()) => {
      const response = await graphql(server, document, variables, token);
      expect(response.body.errors).toBeUndefined();
      return response.body.data;
    };
    const product = (await q(`mutation { saveStoreItemV0(input: { Name: "GQL shirt", Price: 12.5, InventoryTrackingMethodTypeId: "1", InventoryRemaining: "5", SubItems: [{ Name: "One" }] }) { StoreItemId SubItems { StoreSubItemId } } }`)).saveStoreItemV0;
    const file = (await upload('/api/store/downloadfiles/upload', Buffer.from('plain text'), 'notes.txt', 'text/plain')).body.FileId as number;
    const digital = (await q(`mutation($file: String!) { saveStoreItemV1(input: { Name: "GQL ebook", Price: 3, PostSubmitDownloadFile: $file }) { StoreItemId PostSubmitDownloadFile } }`, { file: String(file) })).saveStoreItemV1;
    expect(digital.PostSubmitDownloadFile).toBe(String(file));
    const info = (await q(`mutation { saveStoreItemV3(input: { Name: "GQL info", Price: 0, InfoMessage: "See you there" }) { StoreItemId InfoMessage } }`)).saveStoreItemV3;
    const reads = await q(`query($p: Int!, $d: Int!, $i: Int!) {
      storeItemV0(storeItemId: $p) { Name } storeItemV1(storeItemId: $d) { Name } storeItemV3(storeItemId: $i) { InfoMessage }
      storeItemSubItems(storeItemId: $p) { Name } storeItemLookup { Id } storeMembershipAddonLookup { Id }
      storeMembershipAddons(filter: { Filter: "GQL" }) { TotalRecordAvailable }
    }`, { p: product.StoreItemId, d: digital.StoreItemId, i: info.StoreItemId }, acme.memberToken);
    expect(reads).toMatchObject({ storeItemV0: { Name: 'GQL shirt' }, storeItemV1: { Name: 'GQL ebook' }, storeItemV3: { InfoMessage: 'See you there' }, storeItemSubItems: [{ Name: 'One' }], storeMembershipAddons: { TotalRecordAvailable: '0' } });
    expect(await q('mutation($e: [StoreItemOrderEntryInput!]!) { saveStoreItemOrder(entries: $e) saveStoreMembershipAddonOrder(entries: $e) }', { e: [{ StoreItemId: info.StoreItemId }] }))
      .toEqual({ saveStoreItemOrder: true, saveStoreMembershipAddonOrder: true });

    const imageFile = (await upload('/api/images/upload', await png('#abc'), 'a.png', 'image/png')).body.FileId as number;
    const image = (await q('mutation($s: Int!, $f: Int!) { saveStorePreImage(storeItemId: $s, imageId: 0, fileId: $f, input: { Title: "GQL" }) { ImageId Title } }', { s: product.StoreItemId, f: imageFile })).saveStorePreImage;
    expect(image.Title).toBe('GQL');
    expect(await q('mutation($s: Int!, $i: Int!) { orderStorePreImages(storeItemId: $s, images: [{ ImageId: $i }]) }', { s: product.StoreItemId, i: image.ImageId })).toEqual({ orderStorePreImages: true });
    expect(await q('mutation($s: Int!, $i: Int!) { deleteStorePreImage(storeItemId: $s, imageId: $i) }', { s: product.StoreItemId, i: image.ImageId })).toEqual({ deleteStorePreImage: image.ImageId });

    const receipt = (await q('mutation($s: Int!) { saveStoreItemInventory(input: { StoreItemId: $s, PurchaseDate: "2026-04-01", PurchasePrice: 2, Quantity: 5 }) { StoreItemInventoryId } }', { s: product.StoreItemId })).saveStoreItemInventory;
    await bought([{ StoreItemId: digital.StoreItemId, Quantity: 1 }]);
    const inventory = await q('query($r: Int!, $s: Int!) { storeItemInventory(storeItemInventoryId: $r) { QuantityAvailable } storeItemPurchaseHistory(storeItemId: $s) { Items { Quantity } } }',
      { r: receipt.StoreItemInventoryId, s: digital.StoreItemId });
    expect(inventory).toEqual({ storeItemInventory: { QuantityAvailable: 10 }, storeItemPurchaseHistory: { Items: [{ Quantity: 1 }] } });

    const settings = (await q('query { storeSettings { AuditId } }')).storeSettings;
    expect((await q('mutation($a: Int) { saveStoreSettings(input: { EnableAdditionalNotes: true, AuditId: $a }) { EnableAdditionalNotes } }', { a: settings.AuditId })).saveStoreSettings)
      .toEqual({ EnableAdditionalNotes: true });
    const downloads = (await q('query($s: Int!) { storeDownloads(filter: { Criteria: { StoreItemId: $s } }) { Results { StoreItemDigitalDownloadPurchaseId } } }', { s: digital.StoreItemId })).storeDownloads;
    const purchaseId = downloads.Results[0].StoreItemDigitalDownloadPurchaseId as number;
    expect(await q('mutation($id: Int!) { deleteStoreDownload(storeItemDigitalDownloadPurchaseId: $id) }', { id: purchaseId })).toEqual({ deleteStoreDownload: purchaseId });
  });

  it('of two concurrent saves of one order version, exactly one succeeds', async () => {
    const item = await createItem(3, { Name: 'Raced order item', Price: 2, InfoMessage: 'Hi' });
    const order = await bought([{ StoreItemId: item, Quantity: 1 }]);
    await expectExactlyOneSucceeds(Array.from({ length: 10 }, (_, index) => () => post(`/api/store/storeorders/${order.StorePurchaseId}`, { Notes: `writer ${index}`, AuditId: order.AuditId })), [409]);
  });
});

describe('statements per list', () => {
  it('does not grow with the page (items, orders, downloads)', async () => {
    for (let index = 0; index < 6; index++) {
      const item = await createItem(0, { Name: `Bulk ${index}`, Price: 1, SubItems: [{ Name: 'a' }, { Name: 'b', Price: 2 }] });
      await bought([{ StoreItemId: item, StoreSubItemId: (await get(`/api/store/storeitems/0/${item}`)).body.SubItems[0].StoreSubItemId, Quantity: 1 }]);
    }
    for (const path of ['/api/store/storeitems', '/api/store/storeorders', '/api/store/storedownloads']) {
      await expectStatementsIndependentOfPageSize(server, async (take) => {
        const response = await post(path, { Take: String(take) });
        expect(response.status).toBe(200);
      }, 8);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Money follows through: voucher types, orders paid with their invoice, vouchers issued and redeemed.

const VOUCHER_TYPE = 'VoucherTypeId Name ValueType Value ValidityDays IsActive AuditId';

async function voucherCodes(orderId: number): Promise<{ code: string; contact_id: number; expires_on: string | null }[]> {
  return server.orm.em.fork().getConnection().execute(
    `SELECT code, contact_id, to_char(expires_on, 'YYYY-MM-DD') AS expires_on FROM voucher WHERE order_id = ? ORDER BY sequence`, [orderId]);
}

/** Vouchers of a new type, bought by the member and paid for: their codes. */
async function paidVouchers(quantity: number, type: Record<string, unknown>): Promise<string[]> {
  const saved = await post('/api/setup/vouchertypes/0', { Name: `Type ${Math.random()}`, ...type });
  expect(saved.status).toBe(200);
  const item = await createItem(2, { Name: `Voucher ${saved.body.VoucherTypeId}`, Price: 1, VoucherTypeId: saved.body.VoucherTypeId });
  const order = await bought([{ StoreItemId: item, Quantity: quantity }]);
  await pay(order);
  return (await voucherCodes(order.StorePurchaseId)).map((row) => row.code);
}

async function raisedInvoice(total: number): Promise<number> {
  const item = await graphql(server, 'mutation($price: Float!) { saveSaleableItem(saleableItemId: 0, input: { Name: "Dues", ItemType: "store", Price: $price }) { SaleableItemId } }', { price: total }, staff());
  const raised = await graphql(server, 'mutation($input: InvoiceInput!) { raiseInvoice(input: $input) { InvoiceId } }',
    { input: { ContactId: memberContactId, Lines: [{ SaleableItemId: item.body.data.saveSaleableItem.SaleableItemId, Quantity: 1 }] } }, staff());
  expect(raised.body.errors).toBeUndefined();
  return raised.body.data.raiseInvoice.InvoiceId as number;
}

async function memberEmail(): Promise<string> {
  const [row] = await server.orm.em.fork().getConnection().execute<{ email: string }[]>('SELECT email FROM contact WHERE id = ?', [memberContactId]);
  expect(row.email).toBeTruthy();
  return row.email;
}

describe('voucher types', () => {
  it('creates, lists, updates and deletes them over REST; refuses bad values naming the field; 409 while items sell them', async () => {
    const created = await post('/api/setup/vouchertypes/0', { Name: 'Gift 25', ValueType: 'amount', Value: 25, ValidityDays: 365 });
    expect(created.body).toEqual({ VoucherTypeId: expect.any(Number), Name: 'Gift 25', ValueType: 'amount', Value: 25, ValidityDays: 365, IsActive: true, AuditId: 1 });
    const id = created.body.VoucherTypeId as number;
    const listed = await get(`/api/setup/vouchertypes?options=${encodeURIComponent(JSON.stringify({ Filter: 'gift 25' }))}`);
    expect(listed.body).toEqual([created.body]);
    const updated = await post(`/api/setup/vouchertypes/${id}`, { ...created.body, Value: 25.5, AuditId: 1 });
    expect(updated.body).toMatchObject({ Value: 25.5, AuditId: 2 });
    expect((await post(`/api/setup/vouchertypes/${id}`, { ...created.body, AuditId: 1 })).status).toBe(409);
    expect((await post('/api/setup/vouchertypes/999999', created.body)).status).toBe(404);

    const cases: [Record<string, unknown>, string][] = [
      [{ ValueType: 'percent', Value: 120 }, 'Value'], [{ ValueType: 'gift' }, 'ValueType'], [{ Value: 0 }, 'Value'], [{ Value: 1.005 }, 'Value'],
      [{ Name: ' ' }, 'Name'], [{ ValidityDays: 0 }, 'ValidityDays'],
    ];
    for (const [change, field] of cases) {
      const refused = await post('/api/setup/vouchertypes/0', { Name: 'Bad', ValueType: 'amount', Value: 5, ...change });
      expect({ change, status: refused.status, fields: refused.body.errors?.map((error: { field: string }) => error.field) }).toEqual({ change, status: 400, fields: expect.arrayContaining([field]) });
    }

    // StoreItemV2.VoucherTypeId names an active voucher type of the tenant.
    const item = await createItem(2, { Name: 'Gift card', Price: 25, VoucherTypeId: id });
    const other = await createTestTenant(server, 'store-vouchers-other');
    const foreign = (await post('/api/setup/vouchertypes/0', { Name: 'Theirs', ValueType: 'amount', Value: 1 }, other.staffToken)).body.VoucherTypeId as number;
    for (const voucherTypeId of [999999, foreign]) {
      expect((await post('/api/store/storeitems/2/save', { Name: 'V', Price: 1, VoucherTypeId: voucherTypeId })).body.errors[0].field).toBe('VoucherTypeId');
    }
    expect((await rest(server, 'DELETE', `/api/setup/vouchertypes/${id}/2`, { token: staff() })).status).toBe(409);
    expect((await post(`/api/setup/vouchertypes/${id}`, { ...created.body, IsActive: false, AuditId: 2 })).body.IsActive).toBe(false);
    expect((await post('/api/store/storeitems/2/save', { Name: 'V', Price: 1, VoucherTypeId: id })).body.errors[0]).toMatchObject({ field: 'VoucherTypeId', message: expect.stringContaining('inactive') });
    expect((await checkout([{ StoreItemId: item, Quantity: 1 }])).body.errors?.[0].extensions.errors?.[0].field).toBe('Items[0].StoreItemId');

    const unused = (await post('/api/setup/vouchertypes/0', { Name: 'Unused', ValueType: 'percent', Value: 12.5 })).body.VoucherTypeId as number;
    expect((await rest(server, 'DELETE', `/api/setup/vouchertypes/${unused}/7`, { token: staff() })).status).toBe(409);
    expect((await rest(server, 'DELETE', `/api/setup/vouchertypes/${unused}/1`, { token: staff() })).status).toBe(200);
    expect((await rest(server, 'DELETE', `/api/setup/vouchertypes/${unused}/1`, { token: staff() })).status).toBe(404);
  });

  it('runs the voucher type operations over GraphQL', async () => {
    const saved = await graphql(server, `mutation($input: VoucherTypeInput!) { saveVoucherType(voucherTypeId: 0, input: $input) { ${VOUCHER_TYPE} } }`,
      { input: { Name: 'GraphQL percent', ValueType: 'percent', Value: 15 } }, staff());
    expect(saved.body.data.saveVoucherType).toMatchObject({ Name: 'GraphQL percent', ValueType: 'percent', Value: 15, ValidityDays: null, IsActive: true, AuditId: 1 });
    const id = saved.body.data.saveVoucherType.VoucherTypeId as number;
    const listed = await graphql(server, `{ voucherTypes(options: { Filter: "graphql percent" }) { ${VOUCHER_TYPE} } }`, {}, staff());
    expect(listed.body.data.voucherTypes).toEqual([saved.body.data.saveVoucherType]);
    const updated = await graphql(server, `mutation($id: Int!, $input: VoucherTypeInput!) { saveVoucherType(voucherTypeId: $id, input: $input) { Value AuditId } }`,
      { id, input: { Name: 'GraphQL percent', ValueType: 'percent', Value: 20, AuditId: 1 } }, staff());
    expect(updated.body.data.saveVoucherType).toEqual({ Value: 20, AuditId: 2 });
    const refused = await graphql(server, 'mutation($id: Int!) { deleteVoucherType(voucherTypeId: $id, auditId: 1) }', { id }, staff());
    expect(refused.body.errors?.[0].extensions.code).toBe('CONFLICT');
    const deleted = await graphql(server, 'mutation($id: Int!) { deleteVoucherType(voucherTypeId: $id, auditId: 2) }', { id }, staff());
    expect(deleted.body.data.deleteVoucherType).toBe(id);
    const forMember = await graphql(server, `{ voucherTypes { ${VOUCHER_TYPE} } }`, {}, acme.memberToken);
    expect(forMember.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('money follows through', () => {
  it('order → invoice → payment → Paid, on both interfaces: vouchers issued once, downloads only once paid', async () => {
    const type = (await post('/api/setup/vouchertypes/0', { Name: 'Ten off', ValueType: 'amount', Value: 10, ValidityDays: 30 })).body.VoucherTypeId as number;
    const voucher = await createItem(2, { Name: 'Ten-off voucher', Price: 8, VoucherTypeId: type });
    const file = await upload('/api/store/downloadfiles/upload', Buffer.from('%PDF-1.4 paid guide'), 'paid.pdf', 'application/pdf');
    const guide = await createItem(1, { Name: 'Paid guide', Price: 4, PostSubmitDownloadFile: String(file.body.FileId) });
    const order = await bought([{ StoreItemId: voucher, Quantity: 2 }, { StoreItemId: guide, Quantity: 1 }]);
    expect(order).toMatchObject({ PurchaseStatusId: 'Pending', GrandTotal: 20 });
    const purchase = (await post('/api/store/storedownloads', { Criteria: { StoreItemId: guide } }, acme.memberToken)).body.Results[0];
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(403);

    const payment = (amount: number) => graphql(server, 'mutation($id: Int!, $amount: Float!) { payInvoice(invoiceId: $id, input: { Amount: $amount, Method: "card" }) { Status Balance } }',
      { id: order.InvoiceId, amount }, staff());
    expect((await payment(15)).body.data.payInvoice).toEqual({ Status: 'open', Balance: 5 });
    expect((await get(`/api/store/storeorders/${order.StorePurchaseId}`)).body.PurchaseStatusId).toBe('Pending');
    expect(await voucherCodes(order.StorePurchaseId)).toEqual([]);

    expect((await payment(5)).body.data.payInvoice).toEqual({ Status: 'paid', Balance: 0 });
    const viaRest = await get(`/api/store/storeorders/${order.StorePurchaseId}`, acme.memberToken);
    expect(viaRest.body).toMatchObject({ PurchaseStatusId: 'Paid', AuditId: order.AuditId + 1 });
    const viaGraphql = await graphql(server, 'query($id: Int!) { storeOrder(storePurchaseId: $id) { PurchaseStatusId } }', { id: order.StorePurchaseId }, acme.memberToken);
    expect(viaGraphql.body.data.storeOrder).toEqual({ PurchaseStatusId: 'Paid' });
    const issued = await voucherCodes(order.StorePurchaseId);
    const lastDay = new Date(Date.now() + 29 * 86_400_000).toISOString().slice(0, 10);
    expect(issued).toEqual([
      { code: expect.stringMatching(/^[A-Z2-9]{16}$/), contact_id: memberContactId, expires_on: lastDay },
      { code: expect.stringMatching(/^[A-Z2-9]{16}$/), contact_id: memberContactId, expires_on: lastDay },
    ]);
    expect(issued[0].code).not.toBe(issued[1].code);
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(200);

    // Refunded and paid again, the invoice settles a second time: nothing is issued twice.
    expect((await payment(-5)).body.data.payInvoice.Status).toBe('open');
    expect((await payment(5)).body.data.payInvoice.Status).toBe('paid');
    expect((await voucherCodes(order.StorePurchaseId)).map((row) => row.code)).toEqual(issued.map((row) => row.code));
    const back = await post(`/api/store/storeorders/${order.StorePurchaseId}`, { PurchaseStatusId: 'Pending' });
    expect({ status: back.status, field: back.body.errors?.[0].field }).toEqual({ status: 409, field: 'PurchaseStatusId' });

    // The buyer's unspent vouchers in BillingContactInfo: to staff and to the buyer, never to an anonymous caller.
    const email = await memberEmail();
    const forStaff = await post('/api/public/events/determinebillingcontact', { EmailAddress: email });
    expect(forStaff.body.Vouchers).toEqual(expect.arrayContaining(issued.map((row) => ({
      VoucherId: expect.any(Number), Code: row.code, VoucherTypeId: type, Name: 'Ten off', ValueType: 'amount', Value: 10, IssuedAt: expect.any(String), ExpiresOn: lastDay,
    }))));
    const forBuyer = await graphql(server, 'mutation($input: BillingContactInfoInput!) { determineBillingContact(input: $input) { Vouchers { Code } } }', { input: { EmailAddress: email } }, acme.memberToken);
    expect(forBuyer.body.data.determineBillingContact.Vouchers).toEqual(expect.arrayContaining(issued.map((row) => ({ Code: row.code }))));
    const anonymous = await rest(server, 'POST', '/api/public/events/determinebillingcontact', { headers: { 'x-tenant-key': acme.key }, body: { EmailAddress: email } });
    expect({ status: anonymous.status, vouchers: anonymous.body.Vouchers }).toEqual({ status: 200, vouchers: [] });
  });

  it('lets staff set Paid by hand only on an order whose invoice is paid (one paid before payments moved orders): its vouchers are issued then', async () => {
    const item = await createItem(2, { Name: 'Paid before', Price: 3, VoucherTypeId: await voucherType('Paid before the rule') });
    const order = await bought([{ StoreItemId: item, Quantity: 2 }]);
    const refused = await post(`/api/store/storeorders/${order.StorePurchaseId}`, { PurchaseStatusId: 'Paid' });
    expect({ status: refused.status, field: refused.body.errors?.[0].field }).toEqual({ status: 409, field: 'PurchaseStatusId' });
    // Paid as the invoices area did before it moved what it billed: the order still says Pending.
    await server.orm.em.fork().getConnection().execute(`UPDATE invoice SET status = 'paid', amount_paid = total WHERE id = ?`, [order.InvoiceId]);
    expect((await post(`/api/store/storeorders/${order.StorePurchaseId}`, { PurchaseStatusId: 'Paid' })).body.PurchaseStatusId).toBe('Paid');
    expect(await voucherCodes(order.StorePurchaseId)).toHaveLength(2);
  });

  it('of payments racing to settle one invoice, the order is paid and its vouchers issued exactly once', async () => {
    const type = await voucherType('Raced payments');
    const item = await createItem(2, { Name: 'Raced voucher', Price: 7, VoucherTypeId: type });
    const payFull = (order: { InvoiceId: number }) => () => graphql(server, 'mutation($id: Int!) { payInvoice(invoiceId: $id, input: { Amount: 21, Method: "card" }) { Status } }', { id: order.InvoiceId }, staff());
    const full = await bought([{ StoreItemId: item, Quantity: 3 }]);
    await expectExactlyOneSucceeds(Array.from({ length: 8 }, () => payFull(full)), [400]);
    expect(await voucherCodes(full.StorePurchaseId)).toHaveLength(3);

    // Two halves at once: both are taken, the one that completes the invoice settles it, once.
    const halves = await bought([{ StoreItemId: item, Quantity: 3 }]);
    const half = () => graphql(server, 'mutation($id: Int!) { payInvoice(invoiceId: $id, input: { Amount: 10.5, Method: "card" }) { Status } }', { id: halves.InvoiceId }, staff());
    const results = await Promise.all([half(), half()]);
    expect(results.map((result) => result.body.data?.payInvoice.Status).sort()).toEqual(['open', 'paid']);
    expect((await get(`/api/store/storeorders/${halves.StorePurchaseId}`)).body.PurchaseStatusId).toBe('Paid');
    expect(await voucherCodes(halves.StorePurchaseId)).toHaveLength(3);
  });

  it('cancelling revokes the downloads and unspent vouchers, and a cancelled order takes no payment that would settle it', async () => {
    const file = await upload('/api/store/downloadfiles/upload', Buffer.from('%PDF-1.4 cancelled'), 'gone.pdf', 'application/pdf');
    const guide = await createItem(1, { Name: 'Cancelled guide', Price: 6, PostSubmitDownloadFile: String(file.body.FileId) });
    const gift = await createItem(2, { Name: 'Revoked voucher', Price: 4, VoucherTypeId: await voucherType('Revoked on cancel') });
    const order = await bought([{ StoreItemId: guide, Quantity: 1 }, { StoreItemId: gift, Quantity: 2 }]);
    await pay(order);
    const purchase = (await post('/api/store/storedownloads', { Criteria: { StoreItemId: guide } }, acme.memberToken)).body.Results[0];
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(200);
    const [spent, unspent] = (await voucherCodes(order.StorePurchaseId)).map((row) => row.code);
    expect((await post('/api/setup/vouchers/redeem', { Code: spent, InvoiceId: await raisedInvoice(20) })).status).toBe(200);
    expect((await post(`/api/store/storeorders/${order.StorePurchaseId}`, { PurchaseStatusId: 'Cancelled' })).body.PurchaseStatusId).toBe('Cancelled');
    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(404);
    expect((await post('/api/store/storedownloads', { Criteria: { StoreItemId: guide } })).body.TotalRecordAvailable).toBe('0');
    expect((await voucherCodes(order.StorePurchaseId)).map((row) => row.code)).toEqual([spent]);
    expect((await post('/api/setup/vouchers/redeem', { Code: unspent, InvoiceId: await raisedInvoice(20) })).body.errors[0]).toMatchObject({ field: 'Code', message: 'names no voucher' });

    // An unpaid order's invoice is voided on cancel: no payment is taken.
    const unpaid = await bought([{ StoreItemId: guide, Quantity: 1 }]);
    expect((await post(`/api/store/storeorders/${unpaid.StorePurchaseId}`, { PurchaseStatusId: 'Cancelled' })).status).toBe(200);
    const onVoid = await graphql(server, 'mutation($id: Int!) { payInvoice(invoiceId: $id, input: { Amount: 6, Method: "card" }) { Status } }', { id: unpaid.InvoiceId }, staff());
    expect(onVoid.body.errors?.[0].extensions.code).toBe('CONFLICT');

    // A part-paid order's invoice stays open on cancel (the money is for staff to refund); the rest is refused, nothing is issued.
    const type = await voucherType('Cancelled vouchers');
    const item = await createItem(2, { Name: 'Cancelled voucher', Price: 20, VoucherTypeId: type });
    const partPaid = await bought([{ StoreItemId: item, Quantity: 1 }]);
    const payment = (amount: number) => graphql(server, 'mutation($id: Int!, $amount: Float!) { payInvoice(invoiceId: $id, input: { Amount: $amount, Method: "card" }) { Status } }',
      { id: partPaid.InvoiceId, amount }, staff());
    expect((await payment(5)).body.data?.payInvoice.Status).toBe('open');
    expect((await post(`/api/store/storeorders/${partPaid.StorePurchaseId}`, { PurchaseStatusId: 'Cancelled' })).status).toBe(200);
    const rest15 = await payment(15);
    expect({ status: rest15.status, code: rest15.body.errors?.[0].extensions.code }).toEqual({ status: 409, code: 'CONFLICT' });
    expect((await get(`/api/store/storeorders/${partPaid.StorePurchaseId}`)).body.PurchaseStatusId).toBe('Cancelled');
    expect(await voucherCodes(partPaid.StorePurchaseId)).toEqual([]);
    expect((await payment(-5)).body.data?.payInvoice.Status).toBe('open'); // the refund is taken
  });
});

describe('voucher redemption', () => {
  it('staff spend a voucher on an invoice once, over REST and GraphQL; unknown, expired and spent codes are refused', async () => {
    const [first, second, third] = await paidVouchers(3, { ValueType: 'amount', Value: 10 });
    const [half] = await paidVouchers(1, { ValueType: 'percent', Value: 50 });
    const invoiceId = await raisedInvoice(25);
    const redeemed = await post('/api/setup/vouchers/redeem', { Code: first, InvoiceId: invoiceId });
    expect(redeemed.body).toEqual({ VoucherId: expect.any(Number), InvoiceId: invoiceId, Amount: 10, InvoiceStatus: 'open' });
    const again = await post('/api/setup/vouchers/redeem', { Code: first, InvoiceId: invoiceId });
    expect({ status: again.status, field: again.body.errors?.[0].field }).toEqual({ status: 409, field: 'Code' });
    expect((await post('/api/setup/vouchers/redeem', { Code: 'NOSUCHCODE', InvoiceId: invoiceId })).body.errors[0].field).toBe('Code');
    expect((await post('/api/setup/vouchers/redeem', { Code: second, InvoiceId: 999999 })).status).toBe(404);

    // Any case, with dashes: the same code. A percentage is of the invoice total, never beyond the balance.
    const typed = `${second.slice(0, 8).toLowerCase()}-${second.slice(8)}`;
    const viaGraphql = await graphql(server, 'mutation($input: VoucherRedemptionInput!) { redeemVoucher(input: $input) { Amount InvoiceStatus } }', { input: { Code: typed, InvoiceId: invoiceId } }, staff());
    expect(viaGraphql.body.data.redeemVoucher).toEqual({ Amount: 10, InvoiceStatus: 'open' });
    const rest50 = await graphql(server, 'mutation($input: VoucherRedemptionInput!) { redeemVoucher(input: $input) { Amount InvoiceStatus } }', { input: { Code: half, InvoiceId: invoiceId } }, staff());
    expect(rest50.body.data.redeemVoucher).toEqual({ Amount: 5, InvoiceStatus: 'paid' });
    const invoice = await graphql(server, 'query($id: Int!) { invoice(invoiceId: $id) { Status Balance Payments { Amount Method } } }', { id: invoiceId }, staff());
    expect(invoice.body.data.invoice).toEqual({ Status: 'paid', Balance: 0, Payments: [{ Amount: 10, Method: 'voucher' }, { Amount: 10, Method: 'voucher' }, { Amount: 5, Method: 'voucher' }] });
    expect((await post('/api/setup/vouchers/redeem', { Code: third, InvoiceId: invoiceId })).status).toBe(409); // nothing left to pay

    await server.orm.em.fork().getConnection().execute(`UPDATE voucher SET expires_on = '2020-01-01' WHERE code = ?`, [third]);
    const expired = await post('/api/setup/vouchers/redeem', { Code: third, InvoiceId: await raisedInvoice(5) });
    expect({ status: expired.status, message: expired.body.errors?.[0].message }).toEqual({ status: 400, message: expect.stringContaining('expired on 2020-01-01') });
    const held = (await post('/api/public/events/determinebillingcontact', { EmailAddress: await memberEmail() })).body.Vouchers.map((row: { Code: string }) => row.Code);
    for (const code of [first, second, half, third]) expect(held).not.toContain(code);
  });

  it('of 10 concurrent redemptions of one code, exactly one succeeds and pays once', async () => {
    const [code] = await paidVouchers(1, { ValueType: 'amount', Value: 3 });
    const invoices: number[] = [];
    for (let index = 0; index < 10; index++) invoices.push(await raisedInvoice(9));
    await expectExactlyOneSucceeds(invoices.map((invoiceId) => () => post('/api/setup/vouchers/redeem', { Code: code, InvoiceId: invoiceId })), [409]);
    const [{ count }] = await server.orm.em.fork().getConnection().execute<{ count: string }[]>(
      `SELECT count(*) FROM payment WHERE method = 'voucher' AND invoice_id = ANY(?::int[])`, [`{${invoices.join(',')}}`]);
    expect(count).toBe('1');
  });

  it('pays an event registration with BillingInfo.VoucherCode, where the documents list the vouchers; one code registers once under concurrency', async () => {
    const event = await graphql(server, 'mutation { saveEvent(eventId: 0, input: { Name: "Voucher gala", StartDate: "2099-06-01T18:00:00Z", EndDate: "2099-06-01T22:00:00Z", Status: "open", RequireCaptcha: false, Capacity: 50 }) { EventId } }', {}, staff());
    const eventId = event.body.data.saveEvent.EventId as number;
    const type = await graphql(server, `mutation { saveEventRegistrationType(eventRegistrationTypeId: 0, input: { EventId: ${eventId}, Name: "Seat", Price: 10 }) { EventRegistrationTypeId } }`, {}, staff());
    const typeId = type.body.data.saveEventRegistrationType.EventRegistrationTypeId as number;
    const register = (who: string, code: string) => rest(server, 'POST', `/api/public/events/register_v2/${eventId}`, {
      headers: { 'x-tenant-key': acme.key },
      body: {
        BillingInfo: { FirstName: who, LastName: 'Payer', EmailAddress: `${who}@voucher.example`, VoucherCode: code },
        Registrations: [{ EventRegistrationTypeId: typeId, FirstName: who, LastName: 'Guest', EmailAddress: `${who}@voucher.example` }],
      },
    });
    const [code, raced] = await paidVouchers(2, { ValueType: 'amount', Value: 10 });
    const registered = await register('solo', code);
    expect(registered.status).toBe(200);
    const invoice = await graphql(server, 'query($id: Int!) { invoice(invoiceId: $id) { Status Payments { Amount Method } } }', { id: registered.body.Data.InvoiceId }, staff());
    expect(invoice.body.data.invoice).toEqual({ Status: 'paid', Payments: [{ Amount: 10, Method: 'voucher' }] });
    const refused = await register('late', code);
    expect({ status: refused.status, fields: refused.body.errors?.map((error: { field: string }) => error.field) }).toEqual({ status: 409, fields: ['BillingInfo.VoucherCode'] });

    const seatsBefore = (await rest(server, 'GET', `/api/public/events/getenv/${eventId}`, { headers: { 'x-tenant-key': acme.key } })).body.Data.Event.RemainingCapacity as number;
    await expectExactlyOneSucceeds(Array.from({ length: 6 }, (_, index) => () => register(`racer${index}`, raced)), [409]);
    const seatsAfter = (await rest(server, 'GET', `/api/public/events/getenv/${eventId}`, { headers: { 'x-tenant-key': acme.key } })).body.Data.Event.RemainingCapacity as number;
    expect(seatsBefore - seatsAfter).toBe(1); // the refused registrations took no seat
  });
});
