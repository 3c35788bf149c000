import {
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  TypeInfo,
  validate,
  type ValidationContext,
  type ValidationRule,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { type ComplexityEstimator, createComplexityRule, simpleEstimator } from 'graphql-query-complexity';
import { COST_EXTENSION, type FieldCost, LIST_SIZE_EXTENSION, type ListSize } from '../../../common/graphql/cost.decorator.js';

/**
 * Limits on what one GraphQL document may ask for, as validation rules: the same rules serve
 * HTTP (the Apollo plugin in query-limits.plugin.ts) and WebSocket subscriptions, and they run
 * after parsing and before anything executes.
 *
 * - depth: the longest chain of nested fields, counted through fragments and inline fragments
 *   (introspection's __schema/__type subtrees are bounded by the schema and not counted);
 * - aliases: aliased fields, counted once per use of the fragment that holds them;
 * - complexity: graphql-query-complexity with every field costing 1 and a list field with a
 *   `first` argument costing 1 + first × its selection (so nested lists multiply);
 * - cost (contract §10): the same walk priced by the `@cost`/`@listSize` weights declared next to
 *   the fields (src/common/graphql/cost.decorator.ts), see costEstimator.
 *
 * Complexity and cost sit side by side rather than one replacing the other: GRAPHQL_MAX_COMPLEXITY
 * (§4, default 1000) is a structural bound whose formula clients and the contract fix (every field
 * 1, lists by `first`), while the cost (GRAPHQL_MAX_COST, default 5000, and the per-address budget
 * RATE_LIMIT_COST_MAX) prices what the server does — a search, a mutation, a list without `first`.
 * Were they one number, the lower complexity limit would always answer first and
 * COST_LIMIT_EXCEEDED could never be seen with the defaults. Both are measured by one validation
 * pass over the document (graphql-js visits it once with both rules in parallel), remembered
 * together per document and variables (gate/validated-documents.ts); complexity is checked first.
 */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxComplexity: number;
  maxCost: number;
}

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';
export const COST_LIMIT_EXCEEDED = 'COST_LIMIT_EXCEEDED';
/** Apollo's demand-control convention: a mutation costs 10 (each root field of one). */
export const MUTATION_WEIGHT = 10;

function limitError(code: string, message: string, node: OperationDefinitionNode | undefined, details: object): GraphQLError {
  return new GraphQLError(message, { nodes: node ? [node] : undefined, extensions: { code, ...details } });
}

function fragmentsOf(context: ValidationContext): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return fragments;
}

/**
 * Walks a selection set once per fragment (results are memoized by fragment name), so a
 * document whose fragments spread each other many times costs linear time, not exponential.
 */
class SelectionMeasure {
  private readonly depthMemo = new Map<string, number>();
  private readonly aliasMemo = new Map<string, number>();
  private readonly active = new Set<string>();

  constructor(private readonly fragments: Map<string, FragmentDefinitionNode>) {}

  /** Depth below this selection set: 1 for a set of leaves. */
  depth(selectionSet: SelectionSetNode): number {
    let deepest = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        deepest = Math.max(deepest, 1 + (selection.selectionSet ? this.depth(selection.selectionSet) : 0));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        deepest = Math.max(deepest, this.depth(selection.selectionSet));
      } else {
        deepest = Math.max(deepest, this.fragment(selection.name.value, this.depthMemo, (set) => this.depth(set)));
      }
    }
    return deepest;
  }

  aliases(selectionSet: SelectionSetNode): number {
    let count = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) count += 1;
        if (selection.selectionSet) count += this.aliases(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        count += this.aliases(selection.selectionSet);
      } else {
        count += this.fragment(selection.name.value, this.aliasMemo, (set) => this.aliases(set));
      }
    }
    return count;
  }

  private fragment(name: string, memo: Map<string, number>, measure: (set: SelectionSetNode) => number): number {
    const known = memo.get(name);
    if (known !== undefined) return known;
    const fragment = this.fragments.get(name);
    // Unknown fragments and cycles are reported by the standard rules; they add nothing here.
    if (!fragment || this.active.has(name)) return 0;
    this.active.add(name);
    const value = measure(fragment.selectionSet);
    this.active.delete(name);
    memo.set(name, value);
    return value;
  }
}

export function depthLimitRule(maxDepth: number): ValidationRule {
  return (context): ASTVisitor => {
    const measure = new SelectionMeasure(fragmentsOf(context));
    return {
      OperationDefinition(operation) {
        const depth = measure.depth(operation.selectionSet);
        if (depth > maxDepth) {
          context.reportError(
            limitError(QUERY_TOO_DEEP, `The query is ${depth} levels deep; at most ${maxDepth} are allowed`, operation, {
              depth,
              maxDepth,
            }),
          );
        }
      },
    };
  };
}

export function aliasLimitRule(maxAliases: number): ValidationRule {
  return (context): ASTVisitor => {
    const measure = new SelectionMeasure(fragmentsOf(context));
    return {
      OperationDefinition(operation) {
        const aliases = measure.aliases(operation.selectionSet);
        if (aliases > maxAliases) {
          context.reportError(
            limitError(QUERY_TOO_COMPLEX, `The query uses ${aliases} aliases; at most ${maxAliases} are allowed`, operation, {
              aliases,
              maxAliases,
            }),
          );
        }
      },
    };
  };
}

/** A list field with a `first` argument costs 1 + first × its selection; others fall through. */
export const firstArgumentEstimator: ComplexityEstimator = ({ field, args, childComplexity }) => {
  if (!field.args.some((argument) => argument.name === 'first')) return undefined;
  const first = typeof args.first === 'number' && args.first > 1 ? args.first : 1;
  return 1 + first * childComplexity;
};

export const COMPLEXITY_ESTIMATORS = [firstArgumentEstimator, simpleEstimator({ defaultComplexity: 1 })];

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Math.max(0, value);
  if (Array.isArray(value)) return value.length;
  return undefined;
}

/**
 * The cost of a field, by the `@cost`/`@listSize` convention: its weight (declared with @Cost,
 * else 10 for a root mutation field, else 1), plus the weights of the declared arguments it is
 * given, plus its size × its selection. The size: the first slicing argument given (a number, or
 * a list's length) else the assumed size (@ListSize); `_entities` (federation) by the number of
 * its representations; otherwise `first` when the field has one (as the complexity), else 1.
 */
export const costEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const declared = field.extensions?.[COST_EXTENSION] as FieldCost | undefined;
  const listSize = field.extensions?.[LIST_SIZE_EXTENSION] as ListSize | undefined;
  let cost = declared?.weight ?? (type.name === 'Mutation' ? MUTATION_WEIGHT : 1);
  for (const [name, weight] of Object.entries(declared?.arguments ?? {})) {
    if (args[name] !== undefined && args[name] !== null) cost += weight;
  }
  let size: number | undefined;
  if (listSize) {
    if (listSize.sizedByLengthOf !== undefined) size = sizeOf(args[listSize.sizedByLengthOf]);
    for (const name of size === undefined ? (listSize.slicingArguments ?? []) : []) {
      size = sizeOf(args[name]);
      if (size !== undefined) break;
    }
    size ??= listSize.assumedSize ?? 1;
  } else if (field.name === '_entities') {
    size = sizeOf(args.representations) ?? 1;
  } else if (field.args.some((argument) => argument.name === 'first')) {
    size = typeof args.first === 'number' && args.first > 1 ? args.first : 1;
  }
  return cost + (size ?? 1) * childComplexity;
};

/** The operation's cost; `onComplete` gets it, an error COST_LIMIT_EXCEEDED past `maxCost`. */
export function costLimitRule(
  maxCost: number,
  variables: Record<string, unknown> = {},
  operationName?: string,
  onComplete?: (cost: number) => void,
): ValidationRule {
  return createComplexityRule({
    maximumComplexity: maxCost,
    variables,
    operationName,
    onComplete,
    estimators: [costEstimator],
    maxQueryNodes: Math.max(10_000, 2 * maxCost),
    createError: (max, actual) =>
      limitError(COST_LIMIT_EXCEEDED, `The operation costs ${actual}; at most ${max} is allowed`, undefined, { cost: actual, maxCost: max }),
  });
}

/** Needs the request's variables (a `first: $n` counts $n), so it runs per request, not per cached document. */
export function complexityLimitRule(
  maxComplexity: number,
  variables: Record<string, unknown> = {},
  operationName?: string,
  onComplete?: (complexity: number) => void,
): ValidationRule {
  return createComplexityRule({
    maximumComplexity: maxComplexity,
    variables,
    operationName,
    onComplete,
    estimators: COMPLEXITY_ESTIMATORS,
    // Bounds the walk itself: every field costs at least 1, so more nodes than this is over budget anyway.
    maxQueryNodes: Math.max(10_000, 2 * maxComplexity),
    createError: (max, actual) =>
      limitError(QUERY_TOO_COMPLEX, `The query's complexity is ${actual}; at most ${max} is allowed`, undefined, {
        complexity: actual,
        maxComplexity: max,
      }),
  });
}

/**
 * Checks a parsed (and otherwise valid) document against the limits: the cheap structural rules
 * first, then the complexity, which depends on the variables. Returns the errors, each with
 * `extensions.code`: QUERY_TOO_DEEP, QUERY_TOO_COMPLEX, or BAD_USER_INPUT for variables that do
 * not fit their types. Transport-neutral: the HTTP plugin answers them with status 400.
 */
export function checkQueryLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: QueryLimits,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): readonly GraphQLError[] {
  const structural = checkStructure(schema, document, limits);
  return structural.length > 0 ? structural : checkComplexity(schema, document, limits, variables, operationName);
}

/** Depth and aliases: a property of the document alone, so callers may cache it per document. */
export function checkStructure(schema: GraphQLSchema, document: DocumentNode, limits: QueryLimits): readonly GraphQLError[] {
  return validate(schema, document, [depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases)]);
}

/**
 * The variables whose values can change what `checkComplexity` finds: those used in a `first`
 * argument, in `_entities`' representations, in an argument the field's @ListSize slices by or its
 * @Cost prices (with the schema), or in a directive (@skip/@include decide which fields count).
 * The estimators ignore every other argument, so other variables (an `$id`, say) never matter.
 */
export function complexityVariables(document: DocumentNode, schema?: GraphQLSchema): string[] {
  const names = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      Variable(variable) {
        names.add(variable.name.value);
      },
    });
  const typeInfo = schema ? new TypeInfo(schema) : undefined;
  const priced = (argument: string): boolean => {
    if (argument === 'first' || argument === 'representations') return true;
    const field = typeInfo?.getFieldDef();
    const listSize = field?.extensions?.[LIST_SIZE_EXTENSION] as ListSize | undefined;
    const cost = field?.extensions?.[COST_EXTENSION] as FieldCost | undefined;
    return (listSize?.slicingArguments ?? []).includes(argument) || listSize?.sizedByLengthOf === argument || (cost?.arguments !== undefined && argument in cost.arguments);
  };
  const visitor: ASTVisitor = {
    Argument(argument) {
      if (priced(argument.name.value)) collect(argument.value);
    },
    Directive(directive) {
      for (const argument of directive.arguments ?? []) collect(argument.value);
      return false;
    },
  };
  visit(document, typeInfo ? visitWithTypeInfo(typeInfo, visitor) : visitor);
  return [...names].sort();
}

/** The complexity budget, which depends on the variables (and on the operation chosen). */
export function checkComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: QueryLimits,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): readonly GraphQLError[] {
  return measureComplexity(schema, document, limits, variables, operationName).errors;
}

export interface ComplexityMeasure {
  /** The operation's complexity (the budget when the walk gave up). */
  complexity: number;
  /** Its cost (the limit when the walk gave up). */
  cost: number;
  errors: readonly GraphQLError[];
}

/**
 * The complexity and the cost of the operation, in one validation pass, and when either is over
 * its limit, why (complexity first: §4's QUERY_TOO_COMPLEX keeps its meaning).
 */
export function measureComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: QueryLimits,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): ComplexityMeasure {
  let complexity = 0;
  let cost = 0;
  let errors: readonly GraphQLError[];
  try {
    const complexityRule = complexityLimitRule(limits.maxComplexity, variables ?? {}, operationName ?? undefined, (measured) => (complexity = measured));
    const costRule = costLimitRule(limits.maxCost, variables ?? {}, operationName ?? undefined, (measured) => (cost = measured));
    errors = validate(schema, document, [complexityRule, costRule]);
  } catch (error) {
    // graphql-query-complexity throws once it has walked maxQueryNodes nodes.
    return {
      complexity: limits.maxComplexity,
      cost: limits.maxCost,
      errors: [limitError(QUERY_TOO_COMPLEX, `The query is too complex; at most ${limits.maxComplexity} is allowed`, undefined, {
        maxComplexity: limits.maxComplexity,
        reason: error instanceof Error ? error.message : String(error),
      })],
    };
  }
  // Other errors of the rules are variables that do not fit their types (each rule reports them: kept once).
  const tooComplex = errors.filter((error) => error.extensions.code === QUERY_TOO_COMPLEX);
  const tooCostly = errors.filter((error) => error.extensions.code === COST_LIMIT_EXCEEDED);
  const badInput = errors.filter((error) => error.extensions.code !== QUERY_TOO_COMPLEX && error.extensions.code !== COST_LIMIT_EXCEEDED);
  const uniqueBadInput = [...new Map(badInput.map((error) => [error.message, error])).values()].map(
    (error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } }),
  );
  return { complexity, cost, errors: uniqueBadInput.length > 0 ? uniqueBadInput : tooComplex.length > 0 ? tooComplex : tooCostly };
}
