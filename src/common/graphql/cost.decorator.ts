import { applyDecorators } from '@nestjs/common';
import { Directive, Extensions } from '@nestjs/graphql';

/**
 * The demand-control weights of the `@cost`/`@listSize` convention (IBM's GraphQL cost
 * directives, as Apollo's and Hive's demand control read them), declared once, next to the fields
 * they price. Each decorator writes the same values twice from one declaration: into the field's
 * GraphQL `extensions`, where the service's estimator (src/api/graphql/limits/query-limits.ts)
 * reads them, and as the directive the federation subgraph's SDL prints for a router.
 * Without them: `__typename`, scalars and enums 0, an object (or union, interface) 1, a list of
 * unknown size 1 item, a mutation 10 (the operation).
 */
export interface FieldCost {
  /** What resolving the field costs, in place of its type's weight (object 1, scalar 0). */
  weight: number;
}

export interface ListSize {
  /** The Int arguments that bound the list's length (the first one given counts). */
  slicingArguments?: string[];
  /** Its length when no slicing argument is given: the slicing argument's default, or the list's bound. */
  assumedSize?: number;
  /** When the field returns a connection: its lists of that length (`edges`, `nodes`). */
  sizedFields?: string[];
}

export const COST_EXTENSION = 'cost';
export const LIST_SIZE_EXTENSION = 'listSize';
/** The directive a field's, or an argument's, weight is printed as. */
export const COST_DIRECTIVE = 'cost';

/** `@cost(weight:)` on a field: its weight, in place of its type's. */
export function Cost(weight: number): MethodDecorator & PropertyDecorator {
  return applyDecorators(Extensions({ [COST_EXTENSION]: { weight } satisfies FieldCost }), Directive(`@cost(weight: ${weight})`)) as MethodDecorator & PropertyDecorator;
}

/**
 * `@cost(weight:)` on an argument (a property of an `@ArgsType`): added when the argument is given,
 * e.g. a full-text `search`. Arguments have no extensions in code-first schemas, so the directive
 * itself is the declaration: the estimator reads it from the argument's definition.
 */
export function ArgumentCost(weight: number): PropertyDecorator {
  return Directive(`@cost(weight: ${weight})`) as PropertyDecorator;
}

/** `@listSize(assumedSize:, slicingArguments:, sizedFields:, requireOneSlicingArgument:)`: how many items the list field returns. */
export function ListSize(size: ListSize): MethodDecorator & PropertyDecorator {
  return applyDecorators(Extensions({ [LIST_SIZE_EXTENSION]: size }), Directive(listSizeDirective(size))) as MethodDecorator & PropertyDecorator;
}

function listSizeDirective({ slicingArguments, assumedSize, sizedFields }: ListSize): string {
  const names = (list: string[]) => `[${list.map((name) => JSON.stringify(name)).join(', ')}]`;
  const args = [
    ...(assumedSize === undefined ? [] : [`assumedSize: ${assumedSize}`]),
    ...(slicingArguments === undefined ? [] : [`slicingArguments: ${names(slicingArguments)}`, 'requireOneSlicingArgument: false']),
    ...(sizedFields === undefined ? [] : [`sizedFields: ${names(sizedFields)}`]),
  ];
  return `@listSize(${args.join(', ')})`;
}
