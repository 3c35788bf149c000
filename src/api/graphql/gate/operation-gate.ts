import { createHash } from 'node:crypto';
import { HeaderMap } from '@apollo/server';
import { Inject, Injectable } from '@nestjs/common';
import {
  type DocumentNode,
  getOperationAST,
  GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  stripIgnoredCharacters,
  validate,
} from 'graphql';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Actor } from '../../../common/actor.js';
import { AuthService } from '../../../auth/auth.service.js';
import { RateLimiter, requestKey } from '../../../common/rate-limit/rate-limiter.js';
import { findStringProblem, isWellFormed, NOT_WELL_FORMED } from '../../../common/validation/well-formed.js';
import { AppConfig } from '../../../config/app-config.js';
import { REDIS } from '../../../redis/redis.module.js';
import { Logger } from '@nestjs/common';
import { createFormatError, toGraphQLError } from '../format-error.js';
import { checkStructure, complexityVariables, measureComplexity, type QueryLimits } from '../limits/query-limits.js';
import { loadPersistedQueryManifest } from '../persisted-queries/manifest.js';
import {
  MemoryPersistedQueryStore,
  type PersistedQueryStore,
  RedisPersistedQueryStore,
} from '../persisted-queries/persisted-query-store.js';
import { SubscriptionBudget } from './subscription-budget.js';

/** The doors an operation can come through. */
export type Transport = 'http' | 'ws' | 'sse';

export interface Caller {
  transport: Transport;
  /** The client's address (TRUST_PROXY applied): the key of its rate limits and caps. */
  address: string;
}

/** An operation as a client sent it: nothing here is trusted yet. */
export interface RawOperation {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

export interface AdmittedOperation {
  /** The document's text (from the request, the persisted-query store or the manifest). */
  query: string;
  /** Its SHA-256 (hex). */
  hash: string;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  operationName?: string;
  variables: Record<string, unknown>;
  complexity: number;
}

/**
 * `refused`: the gate's own verdict, answered the same way on every transport.
 * `invalid`: the document does not parse or validate, or names no operation — over HTTP Apollo
 * reports these itself (with every validation error, by the same rules), sockets answer with them.
 */
export type GateVerdict =
  | { admitted: AdmittedOperation }
  | { refused: GraphQLError }
  | { invalid: readonly GraphQLError[]; query: string };

/** How long an automatically persisted query is kept (seconds). */
const APQ_TTL_S = 24 * 60 * 60;
/** Variables deeper than this fit no input type of the schema; walking them could exhaust the stack. */
const MAX_VARIABLE_DEPTH = 32;
/** Text of the validated documents kept in memory (their ASTs take some ten times more). */
const DOCUMENT_CACHE_BYTES = 8 * 1024 * 1024;
/** Distinct variable values remembered per document before its cache starts over. */
const MAX_COSTS_PER_DOCUMENT = 64;

interface Cost {
  complexity: number;
  error?: GraphQLError;
}

/** A document that parsed and validated, with what its limits depend on. */
interface PreparedDocument {
  document: DocumentNode;
  /** Depth and alias limits: a property of the document alone. */
  structural?: GraphQLError;
  /** The variables whose values can change the complexity (`first`, @skip/@include). */
  costVariables: readonly string[];
  costs: Map<string, Cost>;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The SHA-256 of a document text, remembered for the texts seen lately: clients send the same few
 * documents over and over, and a map look-up of the text costs a fraction of hashing it again.
 */
const recentHashes = new LRUCache<string, string>({ maxSize: 4 * 1024 * 1024, sizeCalculation: (_hash, text) => text.length + 64 });
function documentHash(text: string): string {
  let hash = recentHashes.get(text);
  if (hash === undefined) {
    hash = sha256(text);
    if (text.length <= 64 * 1024) recentHashes.set(text, hash);
  }
  return hash;
}

export function refusal(code: string, status: number, message: string, headers?: Record<string, string>): GraphQLError {
  const http = headers ? { status, headers: new HeaderMap(Object.entries(headers)) } : { status };
  return new GraphQLError(message, { extensions: { code, http } });
}

const notWellFormed = (text: string) => (isWellFormed(text) ? undefined : NOT_WELL_FORMED);

/**
 * A string of the request that is not well-formed Unicode (a lone surrogate, which JSON's `\udc00`
 * escape can write): refused before anything reads it, on every transport. In the document
 * (graphql-js refuses it too, but its hash would be that of the text with U+FFFD in its place),
 * the operation's name, the extensions, and any variable: BAD_USER_INPUT naming it.
 */
function illFormedRequest({ query, operationName, variables, extensions }: RawOperation): GraphQLError | undefined {
  if (typeof query === 'string' && !isWellFormed(query)) {
    return refusal('GRAPHQL_PARSE_FAILED', 400, 'Syntax Error: the document is not well-formed Unicode (it holds a lone surrogate)');
  }
  if (typeof operationName === 'string' && !isWellFormed(operationName)) return refusal('BAD_REQUEST', 400, `The operationName ${NOT_WELL_FORMED}`);
  const extension = findStringProblem(extensions, notWellFormed);
  if (extension) return refusal('BAD_REQUEST', 400, `extensions.${extension.field} ${NOT_WELL_FORMED}`);
  const variable = findStringProblem(variables, notWellFormed);
  if (!variable) return undefined;
  const name = variable.field.split('.')[0];
  const where = variable.field === name ? '' : ` (at ${variable.field})`;
  return new GraphQLError(`Variable "$${name}"${where} ${NOT_WELL_FORMED}`, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 }, fieldErrors: [{ field: variable.field, message: NOT_WELL_FORMED }] },
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a JSON value nests deeper than `limit` (iteratively: the value may be 100,000 levels deep). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * How deep `{`, `[` and `(` nest in a document, outside strings and comments (a linear scan
 * that stops as soon as `limit` is passed): graphql-js parses recursively, and a literal nested
 * a few thousand deep would overflow the stack.
 */
export function nestingDepth(query: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < query.length; index += 1) {
    const char = query[index];
    if (char === '#') {
      while (index < query.length && query[index] !== '\n' && query[index] !== '\r') index += 1;
    } else if (char === '"') {
      if (query.startsWith('"""', index)) {
        // Escaped triple quotes (\""") inside a block string do not end it.
        let close = query.indexOf('"""', index + 3);
        while (close !== -1 && query[close - 1] === '\\') close = query.indexOf('"""', close + 3);
        index = close === -1 ? query.length : close + 2;
      } else {
        index += 1;
        while (index < query.length && query[index] !== '"' && query[index] !== '\n') index += query[index] === '\\' ? 2 : 1;
      }
    } else if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === '}' || char === ']' || char === ')') {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * The one gate every GraphQL operation passes before it runs, whichever door it came through —
 * POST and GET /graphql (through the Apollo plugin in gate.plugin.ts), the WebSocket and the
 * event stream (subscription-transports.ts):
 *
 * 1. the credential, looked at afresh (expired, deleted user, changed role);
 * 2. the rate limit of the client's address (a socket's operations count as requests; an HTTP
 *    request was already counted when it arrived);
 * 3. the shape of the request, the depth of its variables, the document's size and nesting;
 * 4. persisted queries: the manifest's allow-list (`only`), or automatic persisted queries with
 *    bounded registrations (`apq`);
 * 5. parsing and validation (cached per document, and the same cache serves Apollo);
 * 6. the operation: a subscription only over a live transport;
 * 7. depth, aliases and complexity (remembered per document and per value of the variables that
 *    change the cost);
 * 8. for subscriptions, the per-address budget of distinct executions every event will cost.
 */
@Injectable()
export class OperationGate {
  readonly limits: QueryLimits;
  private readonly documents = new LRUCache<string, PreparedDocument>({
    maxSize: DOCUMENT_CACHE_BYTES,
    sizeCalculation: (_prepared, hash) => this.sourceLengths.get(hash) ?? 1,
    dispose: (_prepared, hash) => this.sourceLengths.delete(hash),
  });
  private readonly sourceLengths = new Map<string, number>();
  private readonly allowList?: ReadonlyMap<string, string>;
  private readonly persisted?: PersistedQueryStore;
  private readonly maxNesting: number;
  private readonly validationRules;
  readonly subscriptions: SubscriptionBudget;
  /** The one formatter of GraphQL errors, for Apollo and the live transports alike. */
  readonly formatError: ReturnType<typeof createFormatError>;

  constructor(
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    @Inject(REDIS) redis: Redis | null,
  ) {
    this.limits = { maxDepth: config.graphqlMaxDepth, maxAliases: config.graphqlMaxAliases, maxComplexity: config.graphqlMaxComplexity };
    this.maxNesting = Math.max(256, config.graphqlMaxDepth + 32);
    // With introspection off, __schema and __type are refused (Apollo adds its own rule to the same effect).
    this.validationRules = config.graphqlIntrospection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
    if (config.graphqlPersistedQueries === 'only') {
      this.allowList = loadPersistedQueryManifest(config.graphqlPersistedQueriesFile!);
    } else if (config.graphqlPersistedQueries === 'apq') {
      const options = { maxBytes: config.graphqlApqMaxBytes, ttlS: APQ_TTL_S };
      this.persisted = redis ? new RedisPersistedQueryStore(redis, config.redisKeyPrefix, options) : new MemoryPersistedQueryStore(options);
    }
    this.subscriptions = new SubscriptionBudget(config.subscriptionsMaxComplexityPerAddress);
    this.formatError = createFormatError({
      exposeInternalMessages: config.nodeEnv === 'development',
      hideSuggestions: !config.graphqlIntrospection,
      logger: new Logger('GraphQL'),
    });
  }

  /** The actor behind a credential, checked afresh: 401 (a DomainError) when it no longer holds. */
  authenticate(authorization: string | undefined | null): Promise<Actor | null> {
    return this.auth.authenticate(authorization);
  }

  /**
   * Apollo's documentStore: Apollo looks the document up by the same hash before parsing, so it
   * runs exactly what the gate parsed and validated (and never parses a document again).
   */
  readonly documentStore = {
    get: async (key: string) => this.documents.get(key.slice(key.lastIndexOf(':') + 1))?.document,
    set: async () => undefined,
    delete: async () => undefined,
  };

  async admit(raw: RawOperation, caller: Caller, schema: GraphQLSchema): Promise<GateVerdict> {
    if (caller.transport === 'ws') {
      try {
        await this.limiter.consume(requestKey(caller.address), this.config.rateLimitMax, this.config.rateLimitWindowS);
      } catch (error) {
        return { refused: toGraphQLError(error) };
      }
    }
    const { variables, operationName, extensions } = raw;
    if (raw.query !== undefined && raw.query !== null && typeof raw.query !== 'string') {
      return { refused: refusal('BAD_REQUEST', 400, 'The query must be a string') };
    }
    if (variables !== undefined && variables !== null && !isRecord(variables)) {
      return { refused: refusal('BAD_REQUEST', 400, 'The variables must be an object') };
    }
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
      return { refused: refusal('BAD_REQUEST', 400, 'The operationName must be a string') };
    }
    if (extensions !== undefined && extensions !== null && !isRecord(extensions)) {
      return { refused: refusal('BAD_REQUEST', 400, 'The extensions must be an object') };
    }
    if (variables && nestsDeeperThan(variables, MAX_VARIABLE_DEPTH)) {
      return { refused: refusal('BAD_USER_INPUT', 400, `The variables nest deeper than ${MAX_VARIABLE_DEPTH} levels`) };
    }
    const illFormed = illFormedRequest(raw);
    if (illFormed) return { refused: illFormed };
    const text = raw.query === null || raw.query === '' ? undefined : raw.query;
    if (text !== undefined) {
      const tooLarge = this.tooLarge(text);
      if (tooLarge) return { refused: tooLarge };
    }

    const source = await this.resolveSource(text, extensions?.persistedQuery, caller);
    if ('refused' in source) return source;
    const { query, register } = source;

    const hash = register ?? documentHash(query);
    const prepared = this.prepare(hash, query, schema);
    if ('refused' in prepared) return prepared;
    if ('invalid' in prepared) return { invalid: prepared.invalid, query };
    const operation = getOperationAST(prepared.document, operationName ?? undefined);
    if (!operation) {
      return {
        query,
        invalid: [new GraphQLError(
          operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.',
          { extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } } },
        )],
      };
    }
    if (operation.operation === 'subscription' && caller.transport === 'http') {
      return {
        refused: refusal(
          'BAD_REQUEST',
          400,
          'Subscriptions are served over WebSocket (graphql-transport-ws) at /graphql and Server-Sent Events at /graphql/stream, not as HTTP requests',
        ),
      };
    }
    if (prepared.structural) return { refused: prepared.structural };
    const vars = variables ?? {};
    const cost = this.costOf(prepared, schema, vars, operationName ?? undefined);
    if (cost.error) return { refused: cost.error };
    if (register !== undefined) await this.persisted!.set(register, stripIgnoredCharacters(query));
    return {
      admitted: { query, hash, document: prepared.document, operation, operationName: operationName ?? undefined, variables: vars, complexity: cost.complexity },
    };
  }

  private tooLarge(query: string): GraphQLError | undefined {
    const max = this.config.graphqlMaxDocumentBytes;
    // Counted as sent, comments and all.
    if (query.length > max || (query.length * 3 > max && Buffer.byteLength(query) > max)) {
      return refusal('PAYLOAD_TOO_LARGE', 413, `The GraphQL document is larger than ${max} bytes`);
    }
    if (nestingDepth(query, this.maxNesting) > this.maxNesting) {
      return refusal('GRAPHQL_PARSE_FAILED', 400, `Syntax Error: the document nests deeper than ${this.maxNesting} levels`);
    }
    return undefined;
  }

  /** The document to run: as sent, or looked up by its persisted-query id. `register`: store it once admitted. */
  private async resolveSource(
    query: string | undefined,
    persistedQuery: unknown,
    caller: Caller,
  ): Promise<{ query: string; register?: string } | { refused: GraphQLError }> {
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
      if (!this.persisted) return { refused: refusal('PERSISTED_QUERY_NOT_SUPPORTED', 200, 'PersistedQueryNotSupported', NO_STORE) };
      if (!isRecord(persistedQuery) || persistedQuery.version !== 1 || typeof persistedQuery.sha256Hash !== 'string') {
        return { refused: refusal('BAD_REQUEST', 400, 'Unsupported persisted query version') };
      }
      const hash = persistedQuery.sha256Hash;
      if (query === undefined) {
        const stored = await this.persisted.get(hash);
        return stored === undefined ? { refused: refusal('PERSISTED_QUERY_NOT_FOUND', 200, 'PersistedQueryNotFound', NO_STORE) } : { query: stored };
      }
      if (documentHash(query) !== hash) return { refused: refusal('BAD_REQUEST', 400, 'provided sha does not match query') };
      return { query, register: (await this.mayRegister(caller)) ? hash : undefined };
    }
    if (query === undefined) {
      return { refused: refusal('BAD_REQUEST', 400, 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.') };
    }
    return { query };
  }

  /** Registrations per address are limited; one over the limit still runs, it is just not stored. */
  private async mayRegister(caller: Caller): Promise<boolean> {
    try {
      await this.limiter.consume(`apq:${caller.address}`, this.config.graphqlApqRegistrationsMax, this.config.rateLimitWindowS);
      return true;
    } catch {
      return false;
    }
  }

  private prepare(
    hash: string,
    query: string,
    schema: GraphQLSchema,
  ): PreparedDocument | { invalid: readonly GraphQLError[] } | { refused: GraphQLError } {
    const known = this.documents.get(hash);
    if (known) return known;
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.config.graphqlMaxTokens });
    } catch (error) {
      const message = error instanceof Error ? error.message : 'Syntax Error';
      return { invalid: [new GraphQLError(message, { extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } } })] };
    }
    let errors: readonly GraphQLError[];
    try {
      errors = validate(schema, document, this.validationRules);
    } catch (error) {
      // graphql-js rules can throw instead of reporting, e.g. on `subscription { postCreated @skip { id } }`.
      return { refused: refusal('GRAPHQL_VALIDATION_FAILED', 400, error instanceof Error ? error.message : 'Invalid document') };
    }
    if (errors.length > 0) {
      return {
        invalid: errors.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } })),
      };
    }
    const [structural] = checkStructure(schema, document, this.limits);
    const prepared: PreparedDocument = {
      document,
      structural: structural && withStatus(structural, 400),
      costVariables: complexityVariables(document),
      costs: new Map(),
    };
    this.sourceLengths.set(hash, query.length);
    this.documents.set(hash, prepared);
    return prepared;
  }

  /**
   * The complexity, measured once per document and per value of the variables that can change
   * it — the post page asked for with a thousand different `$id`s is measured once.
   */
  private costOf(prepared: PreparedDocument, schema: GraphQLSchema, variables: Record<string, unknown>, operationName?: string): Cost {
    const key = `${operationName ?? ''}\u0000${JSON.stringify(prepared.costVariables.map((name) => variables[name] ?? null))}`;
    const known = prepared.costs.get(key);
    if (known) return known;
    const measured = measureComplexity(schema, prepared.document, this.limits, variables, operationName);
    const [error] = measured.errors;
    const cost = { complexity: measured.complexity, error: error && withStatus(error, 400) };
    if (prepared.costs.size >= MAX_COSTS_PER_DOCUMENT) prepared.costs.clear();
    // Variables that do not fit their types are reported by this walk; such answers are not kept.
    if (error?.extensions.code !== 'BAD_USER_INPUT') prepared.costs.set(key, cost);
    return cost;
  }
}

const NO_STORE = { 'cache-control': 'private, no-cache, must-revalidate' };

function withStatus(error: GraphQLError, status: number): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, extensions: { ...error.extensions, http: { status } } });
}
