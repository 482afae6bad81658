import 'reflect-metadata';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { benchDatabase, freePort, listOptions, seed, startService, stopServerProcess } from './support.js';

/**
 * `npm run bench:tracing`: what OpenTelemetry tracing costs on the REST list (100 items) and the
 * GraphQL list, served as `npm start` serves them (production mode, the tracing preload), with
 * tracing off and with it on — every request sampled and exported to an OTLP/HTTP collector in
 * this process that accepts and discards the spans. Each shape runs in turn `rounds` times;
 * medians of requests per second and p50/p99 latency.
 */
const rounds = 3;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 32;
/** The share of requests traced on the traced server (`BENCH_TRACING_RATIO`, default 1: every one). */
const samplingRatio = process.env.BENCH_TRACING_RATIO ?? '1';

const collector = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;

const database = await benchDatabase('membership_bench_tracing');
const seeded = await seed(database.url, { vendors: 1000, contacts: 10, terms: 0, otherTenants: 1, vendorsPerOtherTenant: 1 });
const shapes = [
  { name: 'REST list (100)', method: 'GET' as const, path: `/api/vendors?options=${listOptions({ Take: 100 })}` },
  { name: 'GraphQL list (100)', method: 'POST' as const, path: '/graphql', body: JSON.stringify({ query: '{ vendors(options: { Take: 100 }) { VendorId Name WebsiteUrl Actions } }' }) },
];

interface Figures { rps: number; p50: number; p99: number }
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Both servers run at once and are measured in turn, round by round, so a change in the machine's load weighs on both alike. */
async function measure(): Promise<{ off: Map<string, Figures[]>; on: Map<string, Figures[]> }> {
  const ports = [await freePort(), await freePort()];
  const servers = [
    await startService(database.url, ports[0], { CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0' }),
    await startService(database.url, ports[1], { CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER_ARG: samplingRatio }),
  ];
  const figures = [new Map<string, Figures[]>(shapes.map((shape) => [shape.name, []])), new Map<string, Figures[]>(shapes.map((shape) => [shape.name, []]))];
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const shape of shapes) {
        for (const index of [0, 1]) {
          const result = await autocannon({
            url: `http://127.0.0.1:${ports[index]}${shape.path}`, method: shape.method, body: shape.body, connections, duration: round === 0 ? 2 : seconds,
            headers: { authorization: `Bearer ${seeded.token}`, 'content-type': 'application/json' },
          });
          if (result.non2xx || result.errors) throw new Error(`${shape.name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          if (round > 0) figures[index].get(shape.name)!.push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
        }
      }
    }
  } finally {
    for (const server of servers) await stopServerProcess(server);
  }
  return { off: figures[0], on: figures[1] };
}

const { off, on } = await measure();
console.log(`Tracing on: ${samplingRatio} of the requests sampled.`);
console.log('| shape | tracing off req/s | tracing on req/s | change | p50/p99 off (ms) | p50/p99 on (ms) |');
console.log('|---|---|---|---|---|---|');
for (const shape of shapes) {
  const [a, b] = [off.get(shape.name)!, on.get(shape.name)!];
  const [rpsOff, rpsOn] = [median(a.map((f) => f.rps)), median(b.map((f) => f.rps))];
  console.log(`| ${shape.name} | ${rpsOff.toFixed(0)} | ${rpsOn.toFixed(0)} | ${(((rpsOn - rpsOff) / rpsOff) * 100).toFixed(1)} % | ${median(a.map((f) => f.p50))}/${median(a.map((f) => f.p99))} | ${median(b.map((f) => f.p50))}/${median(b.map((f) => f.p99))} |`);
}
collector.close();
await database.drop();
await database.server.stop();
