import {
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { checkStructure, costVariables, measureCost, type QueryLimits } from '../limits/query-limits.js';
import { refusal, withStatus } from './refusal.js';

/** Text of the validated documents kept in memory (their ASTs take some ten times more). */
const DOCUMENT_CACHE_BYTES = 8 * 1024 * 1024;
/** Distinct variable values remembered per document before its cache starts over. */
const MAX_COSTS_PER_DOCUMENT = 64;

export interface Cost {
  /** The `@cost`/`@listSize` cost (GRAPHQL_MAX_COST, RATE_LIMIT_COST_MAX, the subscriptions' budget). */
  cost: number;
  error?: GraphQLError;
}

/** A document that parsed and validated, with what its limits depend on. */
export interface PreparedDocument {
  document: DocumentNode;
  /** Depth and alias limits: a property of the document alone. */
  structural?: GraphQLError;
  /** The variables whose values can change the cost (`first`, priced arguments, @skip/@include). */
  costVariables: readonly string[];
  costs: Map<string, Cost>;
}

export interface ValidatedDocumentsOptions {
  limits: QueryLimits;
  maxTokens: number;
  /** With introspection off, __schema and __type are refused (Apollo adds its own rule to the same effect). */
  introspection: boolean;
}

/**
 * Documents parsed and validated once, by SHA-256 (bounded by the bytes of their text), with
 * their depth and alias verdict and their cost per value of the variables that change it.
 * The same cache is Apollo's documentStore, so POST and GET run what the gate validated.
 */
export class ValidatedDocuments {
  private readonly documents = new LRUCache<string, PreparedDocument>({
    maxSize: DOCUMENT_CACHE_BYTES,
    sizeCalculation: (_prepared, hash) => this.sourceLengths.get(hash) ?? 1,
    dispose: (_prepared, hash) => this.sourceLengths.delete(hash),
  });
  private readonly sourceLengths = new Map<string, number>();
  private readonly rules: readonly ValidationRule[];

  constructor(private readonly options: ValidatedDocumentsOptions) {
    this.rules = options.introspection ? specifiedRules : [...specifiedRules, NoSchemaIntrospectionCustomRule];
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

  /** The document of `query` (whose hash is `hash`), parsed and validated; or why it is not one. */
  prepare(hash: string, query: string, schema: GraphQLSchema): PreparedDocument | { invalid: readonly GraphQLError[] } | { refused: GraphQLError } {
    const known = this.documents.get(hash);
    if (known) return known;
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.options.maxTokens });
    } catch (error) {
      const message = error instanceof Error ? error.message : 'Syntax Error';
      return { invalid: [new GraphQLError(message, { extensions: { code: 'GRAPHQL_PARSE_FAILED', http: { status: 400 } } })] };
    }
    let errors: readonly GraphQLError[];
    try {
      errors = validate(schema, document, this.rules);
    } catch (error) {
      // graphql-js rules can throw instead of reporting, e.g. on `subscription { postCreated @skip { id } }`.
      return { refused: refusal('GRAPHQL_VALIDATION_FAILED', 400, error instanceof Error ? error.message : 'Invalid document') };
    }
    if (errors.length > 0) {
      return {
        invalid: errors.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } })),
      };
    }
    const [structural] = checkStructure(schema, document, this.options.limits);
    const prepared: PreparedDocument = {
      document,
      structural: structural && withStatus(structural, 400),
      costVariables: costVariables(document, schema),
      costs: new Map(),
    };
    this.sourceLengths.set(hash, query.length);
    this.documents.set(hash, prepared);
    return prepared;
  }

  /**
   * The cost, measured once per document and per value of the variables that can change
   * it — the post page asked for with a thousand different `$id`s is measured once.
   */
  costOf(prepared: PreparedDocument, schema: GraphQLSchema, variables: Record<string, unknown>, operationName?: string): Cost {
    const key = `${operationName ?? ''}\u0000${JSON.stringify(prepared.costVariables.map((name) => variables[name] ?? null))}`;
    const known = prepared.costs.get(key);
    if (known) return known;
    const measured = measureCost(schema, prepared.document, this.options.limits, variables, operationName);
    const [error] = measured.errors;
    const cost = { cost: measured.cost, error: error && withStatus(error, 400) };
    if (prepared.costs.size >= MAX_COSTS_PER_DOCUMENT) prepared.costs.clear();
    // Variables that do not fit their types are reported by this walk; such answers are not kept.
    if (error?.extensions.code !== 'BAD_USER_INPUT') prepared.costs.set(key, cost);
    return cost;
  }
}
