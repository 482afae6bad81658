import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../context.js';
import { heapBudgetBytes } from '../runtime/heap-budget.js';

/** What a credential lookup found: the caller, and what authentication still checks per request. */
export interface KnownCredential {
  caller: Caller;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

/**
 * Heap an entry keeps, rounded up from a measurement (`node --expose-gc`, 20,000 entries as
 * `authenticate` builds them, heap after a full GC): 387 bytes with a 20-character login and one
 * role, 400 with three roles, 464 with a 100-character login, 616 with 250 — the token hash key,
 * the caller, the LRU's bookkeeping and its expiry, plus about a byte per character of the login.
 * Estimated at 448 bytes + 2 per character of the login, the credential kind and the role names
 * (2: strings beyond Latin-1 take two bytes a character).
 */
const ENTRY = { fixedBytes: 448, bytesPerCharacter: 2 };

/**
 * Without CREDENTIAL_CACHE_MB, the cache may hold a thirtieth of V8's heap limit: 8 MB under
 * `npm start`'s flags, about 16,000 credentials with ordinary logins (each forgotten after
 * CREDENTIAL_CACHE_SECONDS; a credential not kept is looked up again, one statement).
 */
const HEAP_SHARE = 1 / 30;

/** Estimated heap bytes of one entry. */
function entryHeapBytes(known: KnownCredential): number {
  const { login = '', credentialKind = '', roles } = known.caller;
  const characters = login.length + credentialKind.length + roles.reduce((sum, role) => sum + role.length, 0);
  return ENTRY.fixedBytes + ENTRY.bytesPerCharacter * characters;
}

/** The channel PostgreSQL notifies (triggers of migration 0025) when a credential or login changes. */
export const CREDENTIAL_CHANNEL = 'credential_changed';

/**
 * Bearer credentials this instance has looked up, by token hash, so that a request costs no
 * credential query. Revocation stays immediate: triggers on `credential` and `login` notify
 * `credential_changed` whenever a credential is revoked, deleted, re-pointed or its login's roles
 * change, on commit, whoever made the change (an API call, the CLI, another instance); every
 * instance LISTENs and forgets everything it knows. The cache answers only while that listener
 * is connected: after a lost connection it starts empty again once listening. A lookup that
 * raced with a notification is not kept (the generation check). Entries also expire after
 * `ttlSeconds`, and expired or revoked credentials are never kept. The entries are bounded by
 * their estimated heap bytes (CREDENTIAL_CACHE_MB, or a share of the heap limit), least recently
 * used first out.
 */
export class CredentialCache {
  private readonly entries: LRUCache<string, KnownCredential> | null;
  private listener: pg.Client | null = null;
  private listening = false;
  private stopped = false;
  private generation = 0;
  private retry: NodeJS.Timeout | null = null;

  /** `megabytes`: the heap the entries may keep (CREDENTIAL_CACHE_MB); unset, a share of the heap limit. */
  constructor(private readonly url: string, ttlSeconds: number, private readonly log: FastifyBaseLogger, megabytes?: number) {
    this.entries = ttlSeconds > 0
      ? new LRUCache({ maxSize: heapBudgetBytes(megabytes, HEAP_SHARE), sizeCalculation: entryHeapBytes, ttl: ttlSeconds * 1000 })
      : null;
  }

  /** Starts listening for changes (no-op when the cache is off). */
  async start(): Promise<void> {
    if (!this.entries) return;
    await this.listen().catch((error: unknown) => this.reconnectLater(error));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.listening = false;
    await this.listener?.end().catch(() => undefined);
  }

  /** The credential behind a token hash, when known and the cache may answer. */
  get(tokenHash: string): KnownCredential | undefined {
    return this.listening ? this.entries?.get(tokenHash) : undefined;
  }

  /** The generation to hand back to `remember` with a lookup's result. */
  get currentGeneration(): number {
    return this.generation;
  }

  /** Keeps a lookup's result, unless a change was announced since the lookup began. */
  remember(tokenHash: string, known: KnownCredential, generation: number): void {
    if (this.listening && generation === this.generation) this.entries?.set(tokenHash, known);
  }

  /** Forgets every credential (a change was announced, or the listener was lost). */
  forgetAll(): void {
    this.generation++;
    this.entries?.clear();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'credential-cache' });
    client.on('notification', () => this.forgetAll());
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    await client.connect();
    await client.query(`LISTEN ${CREDENTIAL_CHANNEL}`);
    this.listener = client;
    this.forgetAll();
    this.listening = true;
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (this.listener !== client || this.stopped) return;
    this.listening = false;
    this.listener = null;
    this.forgetAll();
    this.reconnectLater(error);
  }

  private reconnectLater(error: unknown): void {
    if (this.stopped) return;
    this.log.warn({ err: error }, 'credential cache not listening; credentials are looked up on every request until it reconnects');
    this.retry = setTimeout(() => {
      this.retry = null;
      this.listen().catch((next: unknown) => this.reconnectLater(next));
    }, 2000);
    this.retry.unref();
  }
}
