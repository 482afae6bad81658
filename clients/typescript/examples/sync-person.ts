import { randomUUID } from 'node:crypto';
import { createMembershipApiClient, type components } from '../src/index.js';

/** A national transaction names its record by NationalID (the document requires it). */
type PartnerAudit = components['schemas']['PartnerAuditInput'] & { NationalID: number };

/**
 * Example partner script: sends one person of the partner's system to the service (matched by
 * NationalID; sending it again changes nothing) and reads back what the service holds.
 * Run: MEMBERSHIP_API_URL=… MEMBERSHIP_API_KEY=<partner key> node --experimental-strip-types clients/typescript/examples/sync-person.ts
 */
export async function syncPerson(client: ReturnType<typeof createMembershipApiClient>, person: PartnerAudit, changedAt = new Date()) {
  const { error } = await client.POST('/api/partnersync/person/upsert', {
    body: { IsNational: true, Transaction: { TransactionId: randomUUID(), ChangedAt: changedAt.toISOString(), Record: person } },
  });
  if (error) throw new Error(`Sync failed: ${JSON.stringify(error)}`);
  const { data, error: readError } = await client.GET('/api/partnersync/getcontactauditbynationalid/{nationalid}', { params: { path: { nationalid: person.NationalID } } });
  if (readError) throw new Error(`Reading back failed: ${JSON.stringify(readError)}`);
  return data;
}

if (process.argv[1]?.endsWith('sync-person.ts')) {
  const client = createMembershipApiClient({ baseUrl: process.env.MEMBERSHIP_API_URL ?? 'http://127.0.0.1:4000', token: process.env.MEMBERSHIP_API_KEY ?? '' });
  console.log(await syncPerson(client, { NationalID: 1001, FirstName: 'Pat', LastName: 'Partner', Email: 'pat@partner.example' }));
}
