import 'reflect-metadata';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchDatabase, freePort, graphqlCaller, residentMb, root, sampledRss, seed, startService, stopServerProcess } from './support.js';

/**
 * `npm run bench:import -- --rows 100000`: the service as `npm start` runs it (its job worker on,
 * the same V8 limits) imports a CSV of that many people, each with a membership term and three
 * custom-field values (a person's choice and text, a membership's text), uploaded over REST and run
 * as the import job. Meanwhile one client reads a contact list page after page. Prints (and writes
 * into BENCHMARKS.md between the import markers, unless `--no-write`) rows per second, the
 * server's peak RSS growth over its peak serving the same reads without an import, and over its RSS at
 * rest (sampled every 50 ms), the reads' p50 and p99
 * during the import and at rest, and the machine's load average.
 */
const { values: options } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, 'no-write': { type: 'boolean', default: false } } });
const rows = Number(options.rows);
const START = '<!-- import results: written by npm run bench:import -->';
const END = '<!-- /import results -->';
if (!Number.isInteger(rows) || rows < 1) throw new Error('usage: npm run bench:import -- --rows <count>');

const database = await benchDatabase('membership_import');
const seeded = await seed(database.url, { vendors: 10, contacts: 10_000, terms: 0, otherTenants: 1, vendorsPerOtherTenant: 1 });
const setup = new pg.Client({ connectionString: database.url });
await setup.connect();
await setup.query(`insert into membership_type (tenant_id, name, duration_months) values ($1, 'Regular', 12)`, [seeded.tenantId]);
await setup.query(`insert into custom_field (tenant_id, applies_to, key, label, kind, choices, required, visibility, position) values
  ($1, 'person', 'tshirt', 'T-shirt size', 'choice', '["S","M","L"]', false, 'staff', 1),
  ($1, 'person', 'employer', 'Employer', 'text', '[]', false, 'staff', 2),
  ($1, 'membership', 'paid_by', 'Paid by', 'text', '[]', false, 'staff', 1)`, [seeded.tenantId]);
await setup.end();

const port = await freePort();
const server = await startService(database.url, port, { CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0' });
const base = `http://127.0.0.1:${port}`;
const auth = { authorization: `Bearer ${seeded.token}` };

const graphql = graphqlCaller(base, seeded.token);

/** Reads one page of 20 contacts after another until `until` says stop; answers each read's time in ms. */
async function readWhile(until: () => boolean): Promise<number[]> {
  const times: number[] = [];
  for (let page = 0; until(); page++) {
    const started = performance.now();
    const response = await fetch(`${base}/api/contacts/items?Take=20&Skip=${(page % 50) * 20}`, { headers: auth });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`read answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return times;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

try {
  const sizes = ['S', 'M', 'L'];
  const lines = ['ExternalId,FirstName,LastName,Email,MembershipType,MembershipStartDate,T-shirt size,Employer,cf:membership:paid_by'];
  for (let index = 0; index < rows; index++) {
    lines.push(`I-${index},First${index},Imported,imported${index}@bench.example,Regular,2026-01-01,${sizes[index % 3]},"Company ${index % 977}, Inc.",card`);
  }
  const csv = Buffer.from(lines.join('\r\n'));
  lines.length = 0;

  // The reads alone first, as long as they take: the service's memory serving them without an
  // import (its young generation grows back to its semi-space size under any steady traffic) is
  // the baseline the import's growth is measured from; RSS at rest is reported beside it.
  const atRest = await residentMb(server.pid!);
  let atRestReadsLeft = 1_000;
  const { result: atRestReads, peakMb: readsOnlyPeak } = await sampledRss(server.pid!, () => readWhile(() => atRestReadsLeft-- > 0));

  const uploadStarted = performance.now();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(csv)], { type: 'text/csv' }), 'bench.csv');
  const uploaded = await fetch(`${base}/api/imports/upload`, { method: 'POST', headers: auth, body: form });
  if (uploaded.status !== 200) throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`);
  const { ImportId: importId } = await uploaded.json() as { ImportId: number };
  const uploadMs = performance.now() - uploadStarted;

  let importing = true;
  let load: number[] = [];
  const reads = readWhile(() => importing);
  const { result: status, ms: importMs, peakMb } = await sampledRss(server.pid!, async () => {
    await graphql('mutation($id: Int!) { startContactImport(importId: $id, input: {}) { State } }', { id: importId });
    for (;;) {
      const { contactImport } = await graphql<{ contactImport: { State: string; Created: number; Rejected: number; Error: string | null } }>(
        'query($id: Int!) { contactImport(importId: $id) { State Created Rejected Error } }', { id: importId });
      if (contactImport.State !== 'queued' && contactImport.State !== 'running') return contactImport;
      load = os.loadavg();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }).finally(() => { importing = false; });
  const duringReads = await reads;
  if (status.State !== 'completed' || status.Created !== rows) throw new Error(`the import ended ${JSON.stringify(status)}`);

  const mb = (value: number) => `${value.toFixed(0)} MB`;
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const report = [
    `Produced by \`npm run bench:import -- --rows ${rows}\` on ${new Date().toISOString().slice(0, 10)}: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'CPU'}, Node ${process.version},`,
    `load average during the import ${load.map((value) => value.toFixed(1)).join(' / ')} (1 / 5 / 15 min; the machine was shared — re-measure on a quiet one).`,
    `The CSV: ${rows.toLocaleString('en')} people, each with a membership term and three custom-field values (${(csv.length / 2 ** 20).toFixed(1)} MB).`,
    '',
    '| figure | measured | goal |',
    '|---|---:|---:|',
    `| import (job: read the stored CSV, batches of IMPORT_BATCH_ROWS) | ${(rows / (importMs / 1000)).toFixed(0)} rows/s (${(importMs / 1000).toFixed(1)} s) | ≥ 2,000 rows/s |`,
    `| upload (streamed to storage, read once for the preview) | ${(uploadMs / 1000).toFixed(1)} s | |`,
    `| server peak RSS growth during the import, over its peak serving the same reads without an import (${mb(readsOnlyPeak)}) | +${mb(peakMb - readsOnlyPeak)} | ≤ 50 MB |`,
    `| the same growth over RSS at rest before any request (${mb(atRest)}) | +${mb(peakMb - atRest)} | |`,
    `| reads (a contact list page of 20) during the import, p50 / p99 (${duringReads.length} reads) | ${ms(percentile(duringReads, 50))} / ${ms(percentile(duringReads, 99))} | p50 < 100 ms |`,
    `| the same reads at rest, p50 / p99 | ${ms(percentile(atRestReads, 50))} / ${ms(percentile(atRestReads, 99))} | |`,
  ].join('\n');
  console.log(report);
  if (!options['no-write']) writeSection(report);
} finally {
  await stopServerProcess(server);
  await database.drop();
  await database.server.stop();
}

/** Writes the figures into BENCHMARKS.md between the import markers (appended the first time). */
function writeSection(report: string): void {
  const file = path.join(root, 'BENCHMARKS.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const section = `${START}\n${report}\n${END}`;
  const start = previous.indexOf(START);
  const end = previous.indexOf(END);
  writeFileSync(file, start >= 0 && end > start ? previous.slice(0, start) + section + previous.slice(end + END.length)
    : `${previous.trimEnd()}\n\n## Contact import (issue 38)\n\n${section}\n`);
}
