import 'reflect-metadata';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/core/config.js';
import { createLogger } from '../src/core/runtime/logger.js';
import { migrate, openOrm } from '../src/db/orm.js';
import { createLogin, createSession, createTenant } from '../src/services/login/identity.js';
import { dashboardWidgetPaths, seedDashboardVolume } from './dashboard-volume.js';
import { benchDatabase } from './support.js';

/**
 * `npm run build && node dist/bench/dashboards.js [--contacts 10000] [--repeat 7]`: one tenant
 * with N contacts and 2N memberships (and N projects and sales opportunities), then every
 * dashboard widget over HTTP, sequentially, `repeat` times each. Prints each widget's median and
 * slowest answer time. A figure for BENCHMARKS.md, not a test: nothing here asserts a time.
 */
const { values: options } = parseArgs({ options: { contacts: { type: 'string', default: '10000' }, repeat: { type: 'string', default: '7' } } });
const contacts = Number(options.contacts);
const repeat = Number(options.repeat);

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
const database = await benchDatabase('membership_dashboards_bench');
const orm = await openOrm({ url: database.url, poolMax: 10 });
try {
  await migrate(orm);
  const em = orm.em.fork();
  const tenant = await createTenant(em, { key: 'bench-dashboards', name: 'Dashboard benchmark' });
  const staff = await createLogin(em, tenant, { email: 'staff@bench-dashboards.example', role: 'staff' });
  const token = (await createSession(em, staff, 1)).token;
  const [gold, basic] = await seedDashboardVolume(orm, tenant.id, contacts);
  await orm.em.getConnection().execute('analyze');

  const app = await buildApp({ config, orm, jobs: null, log: createLogger(config) });
  await app.listen('127.0.0.1', 0);
  const base = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/summary`;
  console.log(`Dashboard widgets over REST, a tenant with ${contacts} contacts and ${2 * contacts} memberships (${repeat} sequential requests each):`);
  const medians: number[] = [];
  for (const path of dashboardWidgetPaths({ gold, basic, org: 0, event: 0, sam: staff.id })) {
    const times: number[] = [];
    let status = 0;
    for (let run = 0; run < repeat; run++) {
      const begin = performance.now();
      const response = await fetch(`${base}/${path}`, { headers: { authorization: `Bearer ${token}` } });
      await response.arrayBuffer();
      times.push(performance.now() - begin);
      status = response.status;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    medians.push(median);
    console.log(`${path.padEnd(34)} median ${median.toFixed(1)} ms, slowest ${times[times.length - 1].toFixed(1)} ms (${status})`);
  }
  medians.sort((a, b) => a - b);
  console.log(`slowest widget median ${medians[medians.length - 1].toFixed(1)} ms; median of the widget medians ${medians[Math.floor(medians.length / 2)].toFixed(1)} ms`);
  await app.close();
} finally {
  await orm.close();
  await database.drop();
  await database.server.stop();
}
