import {
  type ArgumentNode,
  type ASTNode,
  type ASTVisitor,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  type GraphQLArgument,
  GraphQLError,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  type InlineFragmentNode,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
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
import { COST_DIRECTIVE, COST_EXTENSION, type FieldCost, LIST_SIZE_EXTENSION, type ListSize } from '../../../common/graphql/cost.decorator.js';

/**
 * Limits on what one GraphQL document may ask for, checked after parsing and before anything
 * executes, the same on every transport (the operation gate, gate/operation-gate.ts):
 *
 * - depth: the longest chain of nested fields, counted through fragments and inline fragments
 *   (introspection's __schema/__type subtrees are bounded by the schema and not counted);
 * - aliases: aliased fields, counted once per use of the fragment that holds them;
 * - cost (contract §10, §18): THE budget of an operation (GRAPHQL_MAX_COST, and per address
 *   RATE_LIMIT_COST_MAX), by the `@cost`/`@listSize` demand-control convention that Apollo's and
 *   Hive's routers apply to the same weights printed in the subgraph SDL — see measureCost.
 *
 * The fixed complexity formula of v1–v3 (every field 1, GRAPHQL_MAX_COMPLEXITY) is retired: two
 * measures disagreed, and the lower one refused what the cost admitted (the README's own thread
 * query). What it also bounded — the work of the walk itself — is the expanded-selection bound
 * below (QUERY_TOO_COMPLEX), which no document a client writes comes near.
 */
export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';
export const COST_LIMIT_EXCEEDED = 'COST_LIMIT_EXCEEDED';
/** Apollo's demand-control convention: a mutation operation costs 10 more than its selection. */
export const MUTATION_WEIGHT = 10;
/**
 * Fields a document may hold once its fragments are expanded (each use of a fragment counted):
 * bounds the work of measuring it, whatever its cost (a fragment spread twice at every one of 40
 * levels is 2^40 fields of cost 0).
 */
export const MAX_EXPANDED_FIELDS = 10_000;

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

/** The weight an argument adds when it is given: its `@cost(weight:)` directive (cost.decorator.ts, ArgumentCost). */
export function argumentWeight(argument: GraphQLArgument): number {
  const directive = argument.astNode?.directives?.find((node: DirectiveNode) => node.name.value === COST_DIRECTIVE);
  const weight = directive?.arguments?.find((node: ArgumentNode) => node.name.value === 'weight')?.value;
  return weight?.kind === Kind.INT ? Number(weight.value) : 0;
}

function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, value);
  if (Array.isArray(value)) return value.length;
  return undefined;
}

/** A connection's lists (`edges`, `nodes`) and the size its slicing argument gave them. */
interface Sized {
  fields: readonly string[];
  size: number;
}

class TooManyFields extends Error {}

/**
 * The cost walk: each fragment measured once per list context (memoized), so a document whose
 * fragments spread each other many times costs linear time, not exponential.
 */
class CostWalk {
  private fields = 0;
  private readonly memo = new Map<string, { cost: number; fields: number }>();
  private readonly active = new Set<string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
  ) {}

  selectionSet(set: SelectionSetNode, parent: GraphQLNamedType | undefined, sized: Sized | undefined): number {
    let cost = 0;
    for (const selection of set.selections) {
      if (!this.included(selection)) continue;
      if (selection.kind === Kind.FIELD) cost += this.field(selection, parent, sized);
      else if (selection.kind === Kind.INLINE_FRAGMENT) cost += this.selectionSet(selection.selectionSet, this.condition(selection, parent), sized);
      else cost += this.fragment(selection.name.value, sized);
    }
    return cost;
  }

  /**
   * A field: `count × (weight + selection) + arguments`. The weight: its @cost, else 1 for an
   * object, union or interface and 0 for a scalar or enum (and `__typename`). The count, for a
   * list: the size its parent connection's slicing argument gave it (`sizedFields`), else its own
   * slicing argument's value (defaults included), else its assumed size, else (`_entities`) the
   * number of representations, else (no @listSize) its `first`, else 1. A connection field itself is one object: its `first`
   * multiplies its `edges` and `nodes`, not its `pageInfo` or `totalCount`.
   */
  private field(node: FieldNode, parent: GraphQLNamedType | undefined, sized: Sized | undefined): number {
    if ((this.fields += 1) > MAX_EXPANDED_FIELDS) throw new TooManyFields();
    // __typename costs nothing; introspection (__schema, __type) is bounded by the schema.
    if (node.name.value.startsWith('__')) return 0;
    if (!parent || !(isObjectType(parent) || isInterfaceType(parent))) return 0;
    const definition: GraphQLField<unknown, unknown> | undefined = parent.getFields()[node.name.value];
    if (!definition) return 0;
    const args = getArgumentValues(definition, node, this.variables);
    const named = getNamedType(definition.type);
    const declared = definition.extensions?.[COST_EXTENSION] as FieldCost | undefined;
    const listSize = definition.extensions?.[LIST_SIZE_EXTENSION] as ListSize | undefined;
    let argumentsCost = 0;
    for (const argument of definition.args) {
      if (args[argument.name] !== undefined && args[argument.name] !== null) argumentsCost += argumentWeight(argument);
    }
    let sliced: number | undefined;
    for (const name of listSize?.slicingArguments ?? []) {
      sliced = sizeOf(args[name]);
      if (sliced !== undefined) break;
    }
    const size = sliced ?? listSize?.assumedSize ?? 1;
    let count = 1;
    if (isListType(getNullableType(definition.type))) {
      if (sized?.fields.includes(node.name.value)) count = sized.size;
      else if (listSize && !listSize.sizedFields) count = size;
      else if (node.name.value === '_entities') count = sizeOf(args.representations) ?? 1;
      else if (!listSize) count = sizeOf(args.first) ?? 1;
    }
    const weight = declared?.weight ?? (isCompositeType(named) ? 1 : 0);
    const below = listSize?.sizedFields ? { fields: listSize.sizedFields, size } : undefined;
    const selection = node.selectionSet ? this.selectionSet(node.selectionSet, named, below) : 0;
    return count * (weight + selection) + argumentsCost;
  }

  private fragment(name: string, sized: Sized | undefined): number {
    const key = `${name}\u0000${sized ? `${sized.size}:${sized.fields.join(',')}` : ''}`;
    const known = this.memo.get(key);
    if (known) {
      if ((this.fields += known.fields) > MAX_EXPANDED_FIELDS) throw new TooManyFields();
      return known.cost;
    }
    const fragment = this.fragments.get(name);
    // Unknown fragments and cycles are reported by the standard rules; they add nothing here.
    if (!fragment || this.active.has(key)) return 0;
    this.active.add(key);
    const before = this.fields;
    const cost = this.selectionSet(fragment.selectionSet, this.schema.getType(fragment.typeCondition.name.value) ?? undefined, sized);
    this.active.delete(key);
    this.memo.set(key, { cost, fields: this.fields - before });
    return cost;
  }

  private condition(fragment: InlineFragmentNode, parent: GraphQLNamedType | undefined): GraphQLNamedType | undefined {
    return fragment.typeCondition ? (this.schema.getType(fragment.typeCondition.name.value) ?? undefined) : parent;
  }

  /** What @skip/@include leave out costs nothing. */
  private included(node: { directives?: readonly DirectiveNode[] } & ASTNode): boolean {
    if (!node.directives?.length) return true;
    const skip = getDirectiveValues(GraphQLSkipDirective, node as FieldNode, this.variables);
    if (skip?.if === true) return false;
    const include = getDirectiveValues(GraphQLIncludeDirective, node as FieldNode, this.variables);
    return include?.if !== false;
  }
}

export interface CostMeasure {
  /** The operation's cost (the limit when the walk gave up). */
  cost: number;
  /** Why it may not run: COST_LIMIT_EXCEEDED, QUERY_TOO_COMPLEX (too many fields to measure) or BAD_USER_INPUT (variables). */
  errors: readonly GraphQLError[];
}

/**
 * The cost of the operation chosen by `operationName`, with the request's variables (a
 * `first: $n` counts $n), counted through fragments, inline fragments and aliases, without what
 * @skip/@include leave out; a mutation adds MUTATION_WEIGHT. Fragments on several types of a
 * union or interface add up, as routers count them. Past `limits.maxCost`: COST_LIMIT_EXCEEDED
 * with the cost in `extensions`. The document must have passed validation.
 */
export function measureCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: Pick<QueryLimits, 'maxCost'>,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): CostMeasure {
  const operation = getOperationAST(document, operationName);
  if (!operation) return { cost: 0, errors: [] };
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {}, { maxErrors: 10 });
  if (coerced.errors) {
    const unique = [...new Map(coerced.errors.map((error) => [error.message, error])).values()];
    return { cost: 0, errors: unique.map((error) => new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } })) };
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const root = schema.getRootType(operation.operation) ?? undefined;
  let cost: number;
  try {
    cost = new CostWalk(schema, fragments, coerced.coerced).selectionSet(operation.selectionSet, root, undefined);
  } catch (error) {
    // An argument whose value does not fit its type (graphql-js coerces it as execution would).
    if (error instanceof GraphQLError) return { cost: 0, errors: [new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: 'BAD_USER_INPUT' } })] };
    if (!(error instanceof TooManyFields)) throw error;
    return {
      cost: limits.maxCost,
      errors: [limitError(QUERY_TOO_COMPLEX, `The query has more than ${MAX_EXPANDED_FIELDS} fields once its fragments are expanded`, operation, {
        maxFields: MAX_EXPANDED_FIELDS,
      })],
    };
  }
  if (operation.operation === 'mutation') cost += MUTATION_WEIGHT;
  if (cost > limits.maxCost) {
    return { cost, errors: [limitError(COST_LIMIT_EXCEEDED, `The operation costs ${cost}; at most ${limits.maxCost} is allowed`, undefined, { cost, maxCost: limits.maxCost })] };
  }
  return { cost, errors: [] };
}

/**
 * Checks a parsed (and otherwise valid) document against the limits: depth and aliases first,
 * then the cost, which depends on the variables. Transport-neutral: the gate answers with 400.
 */
export function checkQueryLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: QueryLimits,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): readonly GraphQLError[] {
  const structural = checkStructure(schema, document, limits);
  return structural.length > 0 ? structural : measureCost(schema, document, limits, variables, operationName).errors;
}

/** Depth and aliases: a property of the document alone, so callers may cache it per document. */
export function checkStructure(schema: GraphQLSchema, document: DocumentNode, limits: QueryLimits): readonly GraphQLError[] {
  return validate(schema, document, [depthLimitRule(limits.maxDepth), aliasLimitRule(limits.maxAliases)]);
}

/**
 * The variables whose values can change what `measureCost` finds: those used in a slicing
 * argument (`first`), in `_entities`' representations, in an argument with a weight, or in a
 * directive (@skip/@include decide which fields count). Others (an `$id`, say) never matter.
 */
export function costVariables(document: DocumentNode, schema?: GraphQLSchema): string[] {
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
    const definition = typeInfo?.getArgument();
    return (listSize?.slicingArguments ?? []).includes(argument) || (definition ? argumentWeight(definition) > 0 : false);
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
