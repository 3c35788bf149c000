import { type GraphQLError, stripIgnoredCharacters } from 'graphql';
import type { Redis } from 'ioredis';
import type { RateLimiter } from '../../../common/rate-limit/rate-limiter.js';
import type { AppConfig } from '../../../config/app-config.js';
import { loadPersistedQueryManifest } from '../persisted-queries/manifest.js';
import { MemoryPersistedQueryStore, type PersistedQueryStore, RedisPersistedQueryStore } from '../persisted-queries/persisted-query-store.js';
import { documentHash } from './document-hash.js';
import { refusal } from './refusal.js';
import { isRecord } from './request-checks.js';

/** How long an automatically persisted query is kept (seconds). */
const APQ_TTL_S = 24 * 60 * 60;
const NO_STORE = { 'cache-control': 'private, no-cache, must-revalidate' };

/** The document to run, and (automatic persisted queries) the hash to store it under once admitted. */
export type Source = { query: string; register?: string } | { refused: GraphQLError };

/**
 * Where the gate finds the text of an operation, by `GRAPHQL_PERSISTED_QUERIES`: as sent (`off`);
 * the manifest's allow-list, by id or by text (`only`); or automatic persisted queries, with
 * registrations bounded per address and a store bounded in bytes (`apq`). Apollo's own persisted
 * queries are off: these serve every transport, WebSocket and SSE included.
 */
export class PersistedQuerySource {
  private readonly allowList?: ReadonlyMap<string, string>;
  private readonly store?: PersistedQueryStore;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    redis: Redis | null,
  ) {
    if (config.graphqlPersistedQueries === 'only') {
      this.allowList = loadPersistedQueryManifest(config.graphqlPersistedQueriesFile!);
    } else if (config.graphqlPersistedQueries === 'apq') {
      const options = { maxBytes: config.graphqlApqMaxBytes, ttlS: APQ_TTL_S };
      this.store = redis ? new RedisPersistedQueryStore(redis, config.redisKeyPrefix, options) : new MemoryPersistedQueryStore(options);
    }
  }

  /** The document to run: as sent, or looked up by its persisted-query id. */
  async resolve(query: string | undefined, persistedQuery: unknown, address: string): Promise<Source> {
    if (this.allowList) {
      const hash = isRecord(persistedQuery) && typeof persistedQuery.sha256Hash === 'string' ? persistedQuery.sha256Hash : query !== undefined ? documentHash(query) : undefined;
      const listed = hash === undefined ? undefined : this.allowList.get(hash);
      if (listed === undefined || (query !== undefined && query !== listed)) {
        return {
          refused: refusal(
            'PERSISTED_QUERY_REQUIRED',
            400,
            'Only persisted queries may run here: send the id of a listed document as extensions.persistedQuery.sha256Hash',
          ),
        };
      }
      return { query: listed };
    }
    if (persistedQuery !== undefined && persistedQuery !== null) {
      if (!this.store) return { refused: refusal('PERSISTED_QUERY_NOT_SUPPORTED', 200, 'PersistedQueryNotSupported', NO_STORE) };
      if (!isRecord(persistedQuery) || persistedQuery.version !== 1 || typeof persistedQuery.sha256Hash !== 'string') {
        return { refused: refusal('BAD_REQUEST', 400, 'Unsupported persisted query version') };
      }
      const hash = persistedQuery.sha256Hash;
      if (query === undefined) {
        const stored = await this.store.get(hash);
        return stored === undefined ? { refused: refusal('PERSISTED_QUERY_NOT_FOUND', 200, 'PersistedQueryNotFound', NO_STORE) } : { query: stored };
      }
      if (documentHash(query) !== hash) return { refused: refusal('BAD_REQUEST', 400, 'provided sha does not match query') };
      return { query, register: (await this.mayRegister(address)) ? hash : undefined };
    }
    if (query === undefined) {
      return { refused: refusal('BAD_REQUEST', 400, 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.') };
    }
    return { query };
  }

  /** Stores an admitted registration, without its comments and ignored characters (padding buys no storage). */
  async register(hash: string, query: string): Promise<void> {
    await this.store!.set(hash, stripIgnoredCharacters(query));
  }

  /** Registrations per address are limited; one over the limit still runs, it is just not stored. */
  private async mayRegister(address: string): Promise<boolean> {
    try {
      await this.limiter.consume(`apq:${address}`, this.config.graphqlApqRegistrationsMax, this.config.rateLimitWindowS);
      return true;
    } catch {
      return false;
    }
  }
}
