import { createMembershipApiClient } from '../src/index.js';

/**
 * Example partner script: lists the tenant's vendors page by page.
 * Run: MEMBERSHIP_API_URL=http://127.0.0.1:4000 MEMBERSHIP_API_KEY=<key> node --experimental-strip-types clients/typescript/examples/list-vendors.ts
 */
export async function listAllVendors(client: ReturnType<typeof createMembershipApiClient>): Promise<string[]> {
  const names: string[] = [];
  for (let skip = 0; ; skip += 100) {
    const { data, error } = await client.GET('/api/vendors', { params: { query: { options: JSON.stringify({ Skip: skip, Take: 100, OrderBy: 'Name' }) } } });
    if (error) throw new Error(`Listing vendors failed: ${JSON.stringify(error)}`);
    names.push(...data.map((vendor) => vendor.Name ?? ''));
    if (data.length < 100) return names;
  }
}

if (process.argv[1]?.endsWith('list-vendors.ts')) {
  const client = createMembershipApiClient({ baseUrl: process.env.MEMBERSHIP_API_URL ?? 'http://127.0.0.1:4000', token: process.env.MEMBERSHIP_API_KEY ?? '' });
  for (const name of await listAllVendors(client)) console.log(name);
}
