import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { bundle, root, startEnv, startFlags } from './support.js';
import { docxParts, zeros, zipOf } from './zip-archives.js';

/**
 * `npm run bench:hostile`: the service as `npm start` runs it (same V8 limits, its own embedded
 * PostgreSQL in a temporary folder), then 64 connections for 10 s of each kind of hostile
 * request, reporting the server's peak RSS (VmHWM) after each: how far memory goes under abuse.
 */
const main = path.join(bundle, 'main.js');
const megabyte = 'y'.repeat(1_000_000);
/** Just under the REST body limit (API_BODY_LIMIT_BYTES, 256 KiB): the most a signed-in caller can send. */
const nearLimit = 'y'.repeat(250 * 1024);

const kinds: Record<string, (auth: Record<string, string>) => autocannon.Request> = {
  'REST 250 KB JSON, signed in': (auth) => ({ method: 'POST', path: '/api/vendors', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ Name: 'x', WebsiteUrl: nearLimit }) }),
  'REST 1 MB JSON, signed in (over the limit)': (auth) => ({ method: 'POST', path: '/api/vendors', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ Name: 'x', WebsiteUrl: megabyte }) }),
  'REST 1 MB JSON, no credential': () => ({ method: 'POST', path: '/api/vendors', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Name: 'x', WebsiteUrl: megabyte }) }),
  'REST 100,000-deep JSON': (auth) => ({ method: 'POST', path: '/api/vendors', headers: { ...auth, 'content-type': 'application/json' }, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` }),
  'REST 20,000-field form': (auth) => ({ method: 'POST', path: '/api/vendors', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: Array.from({ length: 20_000 }, (_, index) => `Items%5B${index}%5D.Name=x`).join('&') }),
  'GraphQL 60 KB document': (auth) => ({ method: 'POST', path: '/graphql', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: `{ ${'vendors { VendorId } '.repeat(3000)} }` }) }),
  // A sign-in storm: no credential needed, so anyone can send it (the route's limit is 16 KiB: 413).
  'sign-in storm: 250 KB bodies to requestmagiclink': () => ({ method: 'POST', path: '/api/login/requestmagiclink', headers: { 'content-type': 'application/json' }, body: JSON.stringify(['storm@nowhere.example', nearLimit]) }),
  'unsigned 1 MB callback': () => ({ method: 'POST', path: '/api/callback/emailprovider1?tenant=demo', headers: { 'content-type': 'application/json', 'x-callback-timestamp': '1', 'x-callback-signature': 'sha256=00' }, body: JSON.stringify([megabyte]) }),
};

/**
 * A DOCX template of 500 KB whose document inflates to 500 MB of zeros, uploaded once as it is and
 * once with a central directory that declares 1,000 bytes: the answer, its time, and the server's
 * resident memory before and after (the archive must be refused before it is inflated).
 */
async function uploadBombs(auth: Record<string, string>, peak: () => Promise<number>): Promise<void> {
  const document = await zeros('word/document.xml', 500);
  const bombs = { 'DOCX of 500 KB inflating to 500 MB': zipOf([...docxParts(), document]), 'the same, its directory declaring 1,000 bytes': zipOf([...docxParts(), document], () => 1000) };
  const resident = async () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(await readFile(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024);
  for (const [name, bytes] of Object.entries(bombs)) {
    const before = await resident();
    const started = performance.now();
    const response = await fetch('http://127.0.0.1:4779/graphql', {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($c: String!) { uploadDocumentGenerationTemplateFile(fileName: "bomb.docx", contentBase64: $c) { FileId } }', variables: { c: bytes.toString('base64') } }),
    });
    await response.text();
    console.log(`${name} (${Math.round(bytes.length / 1024)} KB): ${response.status} in ${Math.round(performance.now() - started)} ms, RSS ${before} → ${await resident()} MB, peak RSS so far ${await peak()} MB`);
  }
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'membership-hostile-'));
await chmod(dataDir, 0o755); // PostgreSQL runs as its own user when this runs as root
// No per-credential limit: each kind's 64 connections would otherwise meet 429s instead of the abuse measured.
const env = { ...process.env, ...startEnv(), DATA_DIR: dataDir, PORT: '4779', EMBEDDED_PG_PORT: '54781', LOG_LEVEL: 'warn', NODE_ENV: 'development', CREDENTIAL_RATE_LIMIT_PER_MINUTE: '0' };
const server = spawn(process.execPath, [...startFlags(), main], { env, cwd: root });
let output = '';
server.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
server.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
try {
  for (let waited = 0; !/Bearer (\S+)/.test(output); waited += 200) {
    if (waited > 60_000) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const auth = { authorization: `Bearer ${/Bearer (\S+)/.exec(output)![1]}` };
  const peak = async () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024);
  await autocannon({ url: 'http://127.0.0.1:4779', connections: 16, duration: 3, requests: [{ method: 'GET', path: '/api/vendors', headers: auth }] });
  console.log(`after normal load: peak RSS ${await peak()} MB`);
  await uploadBombs(auth, peak);
  for (const [name, request] of Object.entries(kinds)) {
    const result = await autocannon({ url: 'http://127.0.0.1:4779', connections: 64, duration: 10, requests: [request(auth)] });
    console.log(`${name}: ${result.requests.total} requests, ${result['5xx']} × 5xx, peak RSS so far ${await peak()} MB`);
  }
} finally {
  if (server.exitCode === null && server.signalCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('close', resolve));
  }
  await rm(dataDir, { recursive: true, force: true });
}
