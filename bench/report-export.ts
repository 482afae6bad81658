import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { benchDatabase, freePort, graphqlCaller, residentMb, sampledRss, seed, startService, stopServerProcess } from './support.js';

/**
 * `npm run bench:report-export -- --contacts 110000`: the service as `npm start` runs it (its job
 * worker on, the same V8 limits) on a tenant of that many contacts; runs the "Contact directory"
 * report (one CSV row per contact) and downloads its CSV, sampling the server's resident memory
 * every 50 ms. Prints RSS at rest, the highest RSS while the run was produced and while the CSV
 * was downloaded, and the run's and the download's time: a report of any size must be produced
 * and served in memory that does not grow with it.
 */
const { values: options } = parseArgs({ options: { contacts: { type: 'string', default: '110000' } } });
const contacts = Number(options.contacts);
if (!Number.isInteger(contacts) || contacts < 1) throw new Error('usage: npm run bench:report-export -- --contacts <count>');

const database = await benchDatabase('membership_report_export');
const seeded = await seed(database.url, { vendors: 10, contacts, terms: 0, otherTenants: 1, vendorsPerOtherTenant: 1 });
const port = await freePort();
const server = await startService(database.url, port, { CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0' });
const base = `http://127.0.0.1:${port}`;
const auth = { authorization: `Bearer ${seeded.token}` };

const graphql = graphqlCaller(base, seeded.token);

try {
  const catalog = await (await fetch(`${base}/api/reporting`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ Filter: 'Contact directory', IsCustom: false }) })).json() as { Results: { Name: string; ReportId: number }[] };
  const reportId = catalog.Results.find((report) => report.Name === 'Contact directory')!.ReportId;
  const atRest = await residentMb(server.pid!);

  const run = await sampledRss(server.pid!, async () => {
    const { runReport } = await graphql<{ runReport: { ReportRunId: number } }>('mutation($id: Int!) { runReport(input: { ReportId: $id }) { ReportRunId } }', { id: reportId });
    for (;;) {
      const { reportRun } = await graphql<{ reportRun: { State: string; RowsWritten: number; Error: string | null } }>(
        'query($id: Int!) { reportRun(reportRunId: $id) { State RowsWritten Error } }', { id: runReport.ReportRunId });
      if (reportRun.State === 'completed' || reportRun.State === 'failed') return { runId: runReport.ReportRunId, ...reportRun };
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  });
  if (run.result.State !== 'completed') throw new Error(`the run failed: ${run.result.Error}`);
  const afterRun = await residentMb(server.pid!);

  const download = await sampledRss(server.pid!, async () => {
    const { reportRunCsv } = await graphql<{ reportRunCsv: { Url: string; Size: number } }>('query($id: Int!) { reportRunCsv(reportRunId: $id) { Url Size } }', { id: run.result.runId });
    const response = await fetch(`${base}${reportRunCsv.Url}`, { headers: auth });
    let bytes = 0;
    const reader = response.body!.getReader();
    for (let part = await reader.read(); !part.done; part = await reader.read()) bytes += part.value.length;
    if (bytes !== reportRunCsv.Size) throw new Error(`downloaded ${bytes} bytes of ${reportRunCsv.Size}`);
    return bytes;
  });

  const mb = (value: number) => `${value.toFixed(0)} MB`;
  console.log([
    `report export: ${run.result.RowsWritten} rows, CSV of ${(download.result / 2 ** 20).toFixed(1)} MB`,
    `| phase | time | peak RSS | growth over rest (${mb(atRest)}) |`,
    '|---|---:|---:|---:|',
    `| run (job: rows → CSV → storage) | ${(run.ms / 1000).toFixed(1)} s | ${mb(run.peakMb)} | +${mb(run.peakMb - atRest)} |`,
    `| download (GET the run's CSV, streamed) | ${(download.ms / 1000).toFixed(1)} s | ${mb(download.peakMb)} | +${mb(download.peakMb - atRest)} |`,
    `RSS after the run ${mb(afterRun)}, after the download ${mb(await residentMb(server.pid!))}.`,
  ].join('\n'));
} finally {
  await stopServerProcess(server);
  await database.drop();
  await database.server.stop();
}
