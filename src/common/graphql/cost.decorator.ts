import { Extensions } from '@nestjs/graphql';

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
  /** The arguments that bound the list's length (the first one given counts). */
  slicingArguments?: string[];
  /** Its length when no slicing argument is given (or it has none). */
  assumedSize?: number;
}

export const COST_EXTENSION = 'cost';
export const LIST_SIZE_EXTENSION = 'listSize';

/** `@cost(weight:)`: the field's own weight; `argumentWeights` price optional arguments when used. */
export function Cost(weight: number, argumentWeights?: Record<string, number>): MethodDecorator & PropertyDecorator {
  const cost: FieldCost = argumentWeights ? { weight, arguments: argumentWeights } : { weight };
  return Extensions({ [COST_EXTENSION]: cost }) as MethodDecorator & PropertyDecorator;
}

/** `@listSize(slicingArguments:, assumedSize:)`: how many items the list field returns. */
export function ListSize(size: ListSize): MethodDecorator & PropertyDecorator {
  return Extensions({ [LIST_SIZE_EXTENSION]: size }) as MethodDecorator & PropertyDecorator;
}
