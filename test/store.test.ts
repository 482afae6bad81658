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

const png = (color: string) => sharp({ create: { width: 20, height: 20, channels: 3, background: color } }).png().toBuffer();

describe('store items over REST', () => {
  it('creates, reads, lists and updates a product with sub-items; another variant\'s path is 404', async () => {
    const apparel = await post('/api/categorylists/0', { CategoryTypeId: '3', Name: 'Apparel', Items: [{ Name: 'Hoodies' }] });
    const category = String((await get(`/api/categorylists/${apparel.body.CategoryListId}/0/items`, staff())).body.Items[0].CategoryItemId);
    const noCategory = await post('/api/store/storeitems/0/save', { StoreItemId: 0, Name: 'Nowhere', Price: 1, CategoryItemId: '987654' });
    expect([noCategory.status, noCategory.body.errors[0].field]).toEqual([400, 'CategoryItemId']);
    const id = await createItem(0, {
      Name: 'Hoodie', Price: 40, ShortDescription: 'Warm', InventoryTrackingMethodTypeId: '2', Settings: { colour: 'navy' }, CategoryItemId: category,
      SubItems: [{ Name: 'Small', InventoryRemaining: '4' }, { Name: 'XL', Price: 44.5, InventoryRemaining: '2' }],
    });
    const read = await get(`/api/store/storeitems/0/${id}`, acme.memberToken);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      StoreItemId: id, Name: 'Hoodie', ItemType: 'Product', Price: 40, HasSubItems: true, InventoryTrackingMethodTypeId: '2', InventoryRemaining: '6',
      TrackInventory: true, CategoryItemId: category, Settings: { colour: 'navy' }, SettingsJson: '{"colour":"navy"}', ContactId: null, Images: [], AuditId: 1,
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
      [0, { Name: 'P', Price: 1, SettingsJson: '{not json' }, 'SettingsJson'],
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
    const unsold = await createItem(2, { Name: 'Unsold voucher', Price: 10, VoucherTypeId: 3 });
    expect((await rest(server, 'DELETE', `/api/store/storeitems/${unsold}`, { token: staff() })).status).toBe(200);
    expect((await server.orm.em.fork().getConnection().execute('SELECT id FROM store_item WHERE id = ?', [unsold])).length).toBe(0);

    const sold = await createItem(2, { Name: 'Sold voucher', Price: 10, VoucherTypeId: 3 });
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
    const updated = await post(`/api/store/storeorders/${id}`, {
      ...read.body, PurchaseStatusId: 'Shipped', Notes: 'Sent by courier', Address1: '1 Main St', GrandTotal: 0.01, TaxAmount: 99, ShippingAmount: 99,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ PurchaseStatusId: 'Shipped', Notes: 'Sent by courier', Address1: '1 Main St', City: 'Springfield', GrandTotal: 30, TaxAmount: 0, ShippingAmount: 0 });
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

    expect((await download(purchase.DownloadUrl, acme.memberToken)).status).toBe(403); // no active membership yet
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
    const saved = await graphql(server, `mutation($input: StoreItemV2Input!) { saveStoreItemV2(input: $input) { StoreItemId ItemType VoucherTypeId AuditId } }`,
      { input: { Name: 'GraphQL voucher', Price: 25, VoucherTypeId: 4 } }, staff());
    const id = saved.body.data.saveStoreItemV2.StoreItemId as number;
    expect(saved.body.data.saveStoreItemV2).toMatchObject({ ItemType: 'Voucher', VoucherTypeId: 4, AuditId: 1 });
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
    const updated = await graphql(server, `mutation($id: Int!) { updateStoreOrder(storePurchaseId: $id, input: { PurchaseStatusId: "Paid" }) { PurchaseStatusId GrandTotal } }`, { id: order.StorePurchaseId }, staff());
    expect(updated.body.data.updateStoreOrder).toEqual({ PurchaseStatusId: 'Paid', GrandTotal: 50 });
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
