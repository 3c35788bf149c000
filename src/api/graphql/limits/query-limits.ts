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
  validate,
  type ValidationContext,
  type ValidationRule,
  visit,
} from 'graphql';
import { type ComplexityEstimator, createComplexityRule, simpleEstimator } from 'graphql-query-complexity';

/**
 * Limits on what one GraphQL document may ask for, as validation rules: the same rules serve
 * HTTP (the Apollo plugin in query-limits.plugin.ts) and WebSocket subscriptions, and they run
 * after parsing and before anything executes.
 *
 * - depth: the longest chain of nested fields, counted through fragments and inline fragments
 *   (introspection's __schema/__type subtrees are bounded by the schema and not counted);
 * - aliases: aliased fields, counted once per use of the fragment that holds them;
 * - complexity: graphql-query-complexity with every field costing 1 and a list field with a
 *   `first` argument costing 1 + first × its selection (so nested lists multiply).
 */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxComplexity: number;
}

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

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
 * argument (firstArgumentEstimator) or in a directive (@skip/@include decide which fields count).
 * Every other estimator ignores arguments, so other variables (an `$id`, say) never matter.
 */
export function complexityVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      Variable(variable) {
        names.add(variable.name.value);
      },
    });
  visit(document, {
    Argument(argument) {
      if (argument.name.value === 'first') collect(argument.value);
    },
    Directive(directive) {
      for (const argument of directive.arguments ?? []) collect(argument.value);
    },
  });
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
  errors: readonly GraphQLError[];
}

/** The complexity of the operation and, when it is over the budget, why. */
export function measureComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: QueryLimits,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): ComplexityMeasure {
  let complexity = 0;
  let errors: readonly GraphQLError[];
  try {
    const rule = complexityLimitRule(limits.maxComplexity, variables ?? {}, operationName ?? undefined, (measured) => (complexity = measured));
    errors = validate(schema, document, [rule]);
  } catch (error) {
    // graphql-query-complexity throws once it has walked maxQueryNodes nodes.
    return {
      complexity: limits.maxComplexity,
      errors: [limitError(QUERY_TOO_COMPLEX, `The query is too complex; at most ${limits.maxComplexity} is allowed`, undefined, {
        maxComplexity: limits.maxComplexity,
        reason: error instanceof Error ? error.message : String(error),
      })],
    };
  }
  // Other errors of the complexity rule are variables that do not fit their types.
  return {
    complexity,
    errors: errors.map((error) =>
      error.extensions.code === QUERY_TOO_COMPLEX
        ? error
        : new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } }),
    ),
  };
}
