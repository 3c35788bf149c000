import { applyDecorators } from '@nestjs/common';
import { Directive, Extensions } from '@nestjs/graphql';

/**
 * The demand-control weights of the `@cost`/`@listSize` convention (IBM's GraphQL cost
 * directives, as Apollo's demand control reads them), declared next to the fields they price
 * and kept in the field's GraphQL `extensions`, where the cost estimator
 * (src/api/graphql/limits/query-limits.ts) reads them. Without them a field costs 1, a root
 * mutation field 10, and a field with a `first` argument `first` × its selection.
 */
export interface FieldCost {
  /** What resolving the field costs, besides its selection. */
  weight: number;
  /** Added when the argument is given (not null): e.g. a full-text `search`. */
  arguments?: Record<string, number>;
}

export interface ListSize {
  /** The Int arguments that bound the list's length (the first one given counts). */
  slicingArguments?: string[];
  /** A list argument whose length is the list's (`moderateComments(ids:)`): ours, routers slice by Int only. */
  sizedByLengthOf?: string;
  /** Its length when no slicing argument is given (or it has none). */
  assumedSize?: number;
  /** When the field returns a connection: its lists of that length (the router multiplies those only; we multiply the whole selection, a bound above). */
  sizedFields?: string[];
}

export const COST_EXTENSION = 'cost';
export const LIST_SIZE_EXTENSION = 'listSize';

/** `@cost(weight:)`: the field's own weight; `argumentWeights` price optional arguments when used. */
export function Cost(weight: number, argumentWeights?: Record<string, number>): MethodDecorator & PropertyDecorator {
  const cost: FieldCost = argumentWeights ? { weight, arguments: argumentWeights } : { weight };
  return applyDecorators(Extensions({ [COST_EXTENSION]: cost }), Directive(`@cost(weight: ${weight})`)) as MethodDecorator & PropertyDecorator;
}

/** `@listSize(slicingArguments:, assumedSize:)`: how many items the list field returns. */
export function ListSize(size: ListSize): MethodDecorator & PropertyDecorator {
  return applyDecorators(Extensions({ [LIST_SIZE_EXTENSION]: size }), Directive(listSizeDirective(size))) as MethodDecorator & PropertyDecorator;
}

/** The same weights as directives, which a federation subgraph's SDL carries to the router's demand control. */
function listSizeDirective({ slicingArguments, assumedSize, sizedFields }: ListSize): string {
  const names = (list: string[]) => `[${list.map((name) => JSON.stringify(name)).join(', ')}]`;
  const args = [
    ...(assumedSize === undefined ? [] : [`assumedSize: ${assumedSize}`]),
    ...(slicingArguments === undefined ? [] : [`slicingArguments: ${names(slicingArguments)}`, 'requireOneSlicingArgument: false']),
    ...(sizedFields === undefined ? [] : [`sizedFields: ${names(sizedFields)}`]),
  ];
  return `@listSize(${args.join(', ')})`;
}
