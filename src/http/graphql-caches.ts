import type { DocumentStore, PersistedQueryOptions } from '@apollo/server';
import { TokenKind, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { CompiledOperation } from '../core/requests/compiled-execution.js';
import type { CacheFigures } from '../core/runtime/metrics.js';
import { heapBudgetBytes } from '../core/runtime/heap-budget.js';

/**
 * The caches GraphQL keeps per document a client sends: Apollo's parsed and validated documents,
 * our graphql-jit compiled operations, and Apollo's automatic persisted queries (hash → source).
 * Each is an LRU bounded by entries and by an estimate of the heap bytes its entries keep
 * (not their JSON length: a parsed document of 1 KB of source keeps 50–100 KB). The estimates
 * are rounded up from what `bench/document-weights.ts` measured (OPERATIONS.md, "GraphQL caches").
 */

/**
 * A parsed document keeps every token of its source (linked, for its nodes' locations) and its
 * nodes: measured up to 454 bytes per token (a document of 1,582 field names; 260–390 for
 * ordinary ones), 90 per comment (a token too, uncounted by the parser's token limit), and 1.1
 * per character of a long string literal; plus the source itself (1 byte a character, 2 beyond Latin-1).
 */
const DOCUMENT = { fixedBytes: 1024, bytesPerToken: 600, bytesPerComment: 100, bytesPerCharacter: 2 };
/**
 * A compiled operation keeps graphql-jit's generated source and the bytecode made from it on its
 * runs: measured up to 3.05 bytes per character of generated code (most runs 0.2–2.3), plus the
 * document it was compiled from (counted again here, since it outlives its eviction from Apollo's
 * store), plus its key: the operation name and the document's source (`compiledOperationKey`).
 */
const COMPILED = { fixedBytes: 2048, bytesPerCodeCharacter: 4, bytesPerKeyCharacter: 2 };
/** A persisted query's source (2 bytes a character at most) and its key and entry. */
const PERSISTED = { fixedBytes: 256, bytesPerCharacter: 2 };

/**
 * Without GRAPHQL_CACHE_MB, the caches together may hold a fifth of V8's heap limit: 48 MB under
 * `npm start`'s flags (a 240 MB heap limit: 192 MB old space and three 16 MB semi-spaces).
 */
const HEAP_SHARE = 0.2;

/** Each cache's entries, and its share of the budget. */
const LIMITS = {
  documents: { entries: 1000, share: 0.4 },
  compiled: { entries: 500, share: 0.5 },
  persisted: { entries: 1000, share: 0.1 },
};

/** One entry may take at most this part of its cache, so that one huge document cannot empty it. */
const LARGEST_ENTRY_SHARE = 0.1;

/** Estimated heap bytes of a parsed document (with its source) from its tokens and length. */
export function documentHeapBytes(document: DocumentNode): number {
  let tokens = 0;
  let comments = 0;
  for (let token = document.loc?.startToken ?? null; token; token = token.next) {
    if (token.kind === TokenKind.COMMENT) comments++;
    else tokens++;
  }
  const characters = document.loc?.source.body.length ?? 0;
  return DOCUMENT.fixedBytes + DOCUMENT.bytesPerToken * tokens + DOCUMENT.bytesPerComment * comments + DOCUMENT.bytesPerCharacter * characters;
}

/** A compiled operation, the operation it runs (its type and root fields), with its estimated heap bytes. */
export interface CachedOperation { run: CompiledOperation; operation: OperationDefinitionNode; heapBytes: number }

/**
 * The key of the operation `operationName` (empty: the document's only one) of the document
 * `source`, among the compiled operations. The source itself, not a hash of it: a lookup costs
 * a string comparison instead of a SHA-256 of every request's query (GraphQL's fast path).
 */
export function compiledOperationKey(operationName: string | null | undefined, source: string): string {
  return `${operationName ?? ''}\n${source}`;
}

/** Estimated heap bytes of an operation compiled from `document` into `generatedCodeLength` characters of code, under `key`. */
export function compiledHeapBytes(generatedCodeLength: number, document: DocumentNode, key: string): number {
  return COMPILED.fixedBytes + COMPILED.bytesPerCodeCharacter * generatedCodeLength + documentHeapBytes(document) + COMPILED.bytesPerKeyCharacter * key.length;
}

/** An LRU bounded by entries and by estimated heap bytes, with its figures for /metrics. */
export class BoundedCache<Value extends object | string> {
  readonly #entries: LRUCache<string, Value>;

  constructor(readonly name: string, maxEntries: number, maxBytes: number, heapBytes: (value: Value) => number) {
    this.#entries = new LRUCache<string, Value>({
      max: maxEntries,
      maxSize: maxBytes,
      maxEntrySize: Math.max(1, Math.floor(maxBytes * LARGEST_ENTRY_SHARE)),
      sizeCalculation: (value) => Math.max(1, Math.ceil(heapBytes(value))),
    });
  }

  get(key: string): Value | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` (unless it alone weighs more than its share of the cache), evicting the least recently used. */
  set(key: string, value: Value): void {
    this.#entries.set(key, value);
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  figures(): CacheFigures {
    return { cache: this.name, entries: this.#entries.size, maxEntries: this.#entries.max, bytes: this.#entries.calculatedSize, maxBytes: this.#entries.maxSize };
  }

  /** The same cache as Apollo's asynchronous KeyValueCache (its document store, its persisted queries). */
  asKeyValueCache(): { get(key: string): Promise<Value | undefined>; set(key: string, value: Value): Promise<void>; delete(key: string): Promise<boolean> } {
    return {
      get: async (key) => this.get(key),
      set: async (key, value) => this.set(key, value),
      delete: async (key) => this.delete(key),
    };
  }
}

export interface GraphqlCaches {
  compiled: BoundedCache<CachedOperation>;
  /** Apollo's options for the two caches it keeps. */
  apolloOptions: { documentStore: DocumentStore; persistedQueries: PersistedQueryOptions };
  figures: () => CacheFigures[];
}

/**
 * The three caches, sharing a budget of `megabytes` (GRAPHQL_CACHE_MB) or, unset, a fifth of V8's
 * heap limit (see LIMITS for the shares).
 */
export function graphqlCaches(megabytes: number | undefined): GraphqlCaches {
  const budget = heapBudgetBytes(megabytes, HEAP_SHARE);
  const bytesOf = (cache: keyof typeof LIMITS) => Math.floor(budget * LIMITS[cache].share);
  const documents = new BoundedCache<DocumentNode>('documents', LIMITS.documents.entries, bytesOf('documents'), documentHeapBytes);
  const compiled = new BoundedCache<CachedOperation>('compiled', LIMITS.compiled.entries, bytesOf('compiled'), (operation) => operation.heapBytes);
  const persisted = new BoundedCache<string>('persisted', LIMITS.persisted.entries, bytesOf('persisted'), (query) => PERSISTED.fixedBytes + PERSISTED.bytesPerCharacter * query.length);
  return {
    compiled,
    apolloOptions: { documentStore: documents.asKeyValueCache(), persistedQueries: { cache: persisted.asKeyValueCache() } },
    figures: () => [documents.figures(), compiled.figures(), persisted.figures()],
  };
}
