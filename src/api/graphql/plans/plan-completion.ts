import type { FieldNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { Actor } from '../../../common/actor.js';
import { toDate } from '../../../common/persistence/entity-table.js';
import { MAX_INT32 } from '../../../common/validation/limits.js';
import type { ArgumentValue, PlannedField, Variables } from './plan-walk.js';

/**
 * What the plans share at each request: reading their arguments' values, hydrating positional
 * JSON tuples (Dialect.jsonRows) and completing the response as graphql-js would (response keys
 * in selection order, leaves serialized by their schema types, a missing non-null value left to
 * the resolvers).
 */

/** What runs a planned document: its request's variables and reader. */
export interface PlannedRequest {
  queryHash: string;
  operationName: string | undefined;
  operation: OperationDefinitionNode;
  schema: GraphQLSchema;
  variables: Record<string, unknown> | undefined;
  actor: Actor | null;
  /** The request's Accept-Language (a list's language with translations). */
  acceptLanguage: string | undefined;
}

/** A planned root field: its plan, made once per document, and its answer at each request. */
export interface RootPlanner<P> {
  /** The plan of this root field; throws NoPlan (plan-walk) for what it does not cover. */
  plan(schema: GraphQLSchema, root: FieldNode, variables: Variables): P;
  /** The root field's value for this request; throws Declined to leave the request to the resolvers. */
  answer(plan: P, request: PlannedRequest): Promise<unknown>;
}

/** Thrown where an answer cannot be given as the resolvers would: the document then runs as before. */
export class Declined extends Error {}

export const declined = (): never => {
  throw new Declined();
};

/** A column of a positional row: where its value goes and how it is read. */
export interface TupleColumn {
  property: string;
  timestamp: boolean;
  boolean: boolean;
}

/** An Int argument's value for this request; undefined when it is absent, null or not an Int (graphql-js would answer). */
export function intOf(value: ArgumentValue, variables: Record<string, unknown> | undefined): number | undefined {
  const given = 'literal' in value ? value.literal : 'absent' in value ? undefined : variables?.[value.variable];
  return typeof given === 'number' && Number.isInteger(given) && Math.abs(given) <= MAX_INT32 ? given : undefined;
}

/** A String argument's value for this request; undefined when it is absent, null or not a string. */
export function stringOf(value: ArgumentValue, variables: Record<string, unknown> | undefined): string | undefined {
  const given = 'literal' in value ? value.literal : 'absent' in value ? undefined : variables?.[value.variable];
  return typeof given === 'string' ? given : undefined;
}

/** Whether an argument is absent from the document or its variable was not given at all (the argument's default then applies). */
export function isUnset(value: ArgumentValue, variables: Record<string, unknown> | undefined): boolean {
  return 'absent' in value || ('variable' in value && (variables === undefined || !Object.hasOwn(variables, value.variable)));
}

/** Whether an argument's value for this request is null (given as null, or its variable given as null). */
export function isNull(value: ArgumentValue, variables: Record<string, unknown> | undefined): boolean {
  return 'variable' in value && variables !== undefined && Object.hasOwn(variables, value.variable) && variables[value.variable] === null;
}

/** The tuples of a jsonRows value: JSON text (a nested one comes as text too), or none. */
export function parseTuples(value: unknown): unknown[][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value as unknown[][];
  return JSON.parse(String(value)) as unknown[][];
}

export function hydrate(tuple: readonly unknown[], columns: readonly TupleColumn[], offset: number): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index++) {
    const column = columns[index];
    const value = tuple[offset + index];
    item[column.property] = value === null ? null : column.timestamp ? toDate(value) : column.boolean ? Boolean(value) : value;
  }
  return item;
}

/** In code-point order, as TagsRepository sorts a post's tags. */
export function bySlug(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const x = a.slug as string;
  const y = b.slug as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The response object of `source` for these fields, as graphql-js completes it. */
export function complete(fields: readonly PlannedField[], source: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    switch (field.kind) {
      case 'typename':
        result[field.key] = field.typename;
        break;
      case 'leaf': {
        const value = source[field.property];
        if (value === null || value === undefined) {
          if (field.nonNull) declined();
          result[field.key] = null;
        } else {
          const serialized = field.type.serialize(value);
          if (serialized === undefined) declined();
          result[field.key] = serialized;
        }
        break;
      }
      case 'object': {
        // Every planned object is non-null in the schema (Post.author, a connection's pageInfo, an edge's node).
        const related = source[field.relation] as Record<string, unknown> | null | undefined;
        if (!related) return declined();
        result[field.key] = complete(field.fields, related);
        break;
      }
      case 'list': {
        const items = source[field.relation] as Record<string, unknown>[] | undefined;
        if (!items) return declined();
        result[field.key] = items.map((item) => complete(field.fields, item));
        break;
      }
    }
  }
  return result;
}
