import { request as httpRequest } from 'node:http';
import { callbackSignature } from '../../src/services/callbacks/callbacks.js';

/**
 * Mixed client load against a server process, for the fault tests (process-faults.test.ts):
 * each client repeats one kind of request as fast as it is answered and records every outcome,
 * so a test can compare what was acknowledged with what the database holds afterwards.
 */

export type LoadKind = 'read' | 'list' | 'graphql' | 'create' | 'save' | 'callback';

export interface Outcome {
  kind: LoadKind;
  /** What the request wrote: the vendor name, or the callback's event id. */
  key: string;
  /** The client's own vendor, for saves. */
  vendorId?: number;
  /** Sent before `markSignal()` was called. */
  sentBefore: boolean;
  /** Answered (or failed) after `markSignal()`. */
  endedAfter: boolean;
  status?: number;
  contentType?: string | null;
  connection?: string | null;
  /** Network failure: the cause's code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, ...). */
  error?: string;
  /** A created vendor's id, from the answer. */
  id?: number;
}

/** The kinds the clients take, in turn: 16 clients give 3 readers, 3 list pages, 2 GraphQL, 3 creates, 2 saves, 3 callbacks. */
const MIX: LoadKind[] = ['create', 'read', 'callback', 'save', 'list', 'create', 'graphql', 'callback', 'read', 'list', 'create', 'save', 'callback', 'read', 'list', 'graphql'];

export class Load {
  readonly outcomes: Outcome[] = [];
  private running = true;
  private signalled = false;
  private serial = 0;
  private readonly clients: Promise<void>[] = [];

  constructor(private readonly base: string, private readonly token: string, private readonly secret: string, private readonly label: string, private readonly readId: number) {}

  /** Starts `count` clients; those that save first create their own vendor. */
  start(count: number): void {
    for (let index = 0; index < count; index++) this.clients.push(this.client(MIX[index % MIX.length], index));
  }

  /** Outcomes from now on count as after the signal. */
  markSignal(): void {
    this.signalled = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  acknowledged(kind: LoadKind): Outcome[] {
    return this.outcomes.filter((outcome) => outcome.kind === kind && outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300);
  }

  private async client(kind: LoadKind, index: number): Promise<void> {
    let vendorId: number | undefined;
    while (this.running) {
      if (kind === 'save' && vendorId === undefined) {
        const created = await this.send('create', `${this.label} own ${index}`);
        vendorId = created.id;
        if (vendorId === undefined) { await pause(100); continue; }
      }
      const outcome = await this.send(kind, `${this.label} ${kind} ${index}-${++this.serial}`, vendorId);
      // Refused or shutting down: back off a little instead of spinning.
      if (outcome.error || outcome.status === 503) await pause(100);
    }
  }

  private async send(kind: LoadKind, key: string, vendorId?: number): Promise<Outcome> {
    const outcome: Outcome = { kind, key, vendorId, sentBefore: !this.signalled, endedAfter: false };
    const auth = { authorization: `Bearer ${this.token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    try {
      let response: Response;
      if (kind === 'read') response = await fetch(`${this.base}/api/vendors/${this.readId}`, { headers: auth });
      else if (kind === 'list') response = await fetch(`${this.base}/api/vendors?options=${encodeURIComponent(JSON.stringify({ Take: 5 }))}`, { headers: auth });
      else if (kind === 'graphql') {
        response = await fetch(`${this.base}/graphql`, { method: 'POST', headers: json, body: JSON.stringify({ query: '{ vendors(options: { Take: 5 }) { VendorId Name } }' }) });
      } else if (kind === 'create' || kind === 'save') {
        // Every write carries an Idempotency-Key (its key), as a careful client's would.
        const body = JSON.stringify(kind === 'save' ? { VendorId: vendorId, Name: key } : { Name: key });
        response = await fetch(`${this.base}/api/vendors`, { method: 'POST', headers: { ...json, 'idempotency-key': key.replace(/\s/g, '_') }, body });
      } else {
        const body = callbackBody(key);
        response = await fetch(`${this.base}/api/callback/emailprovider1?tenant=demo`, { method: 'POST', headers: signedHeaders(this.secret, body), body });
      }
      outcome.status = response.status;
      outcome.contentType = response.headers.get('content-type');
      outcome.connection = response.headers.get('connection');
      const text = await response.text();
      if (kind === 'create' && response.status === 200) outcome.id = (JSON.parse(text) as { VendorId: number }).VendorId;
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      outcome.error = cause?.code ?? cause?.message ?? String(error);
    }
    outcome.endedAfter = this.signalled;
    this.outcomes.push(outcome);
    return outcome;
  }
}

/** A SendGrid-style (emailprovider1) batch of one delivery event whose id is `eventId`. */
export function callbackBody(eventId: string): string {
  return JSON.stringify([{ sg_event_id: eventId, event: 'delivered', email: 'someone@demo.example', timestamp: 1700000000 }]);
}

export function signedHeaders(secret: string, body: string): Record<string, string> {
  const timestamp = Math.floor(Date.now() / 1000);
  return { 'content-type': 'application/json', 'x-callback-timestamp': String(timestamp), 'x-callback-signature': callbackSignature(secret, timestamp, body) };
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SlowAnswer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/**
 * A request whose body is held back: its headers go out with `Expect: 100-continue`, and
 * `accepted` resolves once the server has taken the request in (its 100 Continue); `finish()`
 * then sends the body and resolves with the answer. A request provably in flight at a signal.
 */
export function slowRequest(url: string, method: string, headers: Record<string, string>, body: Buffer | string): { accepted: Promise<void>; finish(): Promise<SlowAnswer> } {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  let answer!: Promise<SlowAnswer>;
  let request!: ReturnType<typeof httpRequest>;
  const accepted = new Promise<void>((resolve, reject) => {
    answer = new Promise<SlowAnswer>((resolveAnswer, rejectAnswer) => {
      request = httpRequest(url, { method, agent: false, headers: { ...headers, 'content-length': String(bytes.length), expect: '100-continue' } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => { text += chunk; });
        response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
        response.on('error', rejectAnswer);
      });
      request.on('continue', () => resolve());
      request.on('error', (error) => { reject(error); rejectAnswer(error); });
      request.flushHeaders();
    });
  });
  answer.catch(() => {});
  return {
    accepted,
    finish() {
      request.end(bytes);
      return answer;
    },
  };
}

/** A 1×1 PNG. */
export const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A multipart/form-data body with one file part named `file`. */
export function multipartImage(filename: string, bytes = TINY_PNG): { contentType: string; body: Buffer } {
  const boundary = `----fault${Math.random().toString(16).slice(2)}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}
