import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { DomainError } from '../../../common/errors/domain-error.js';
import { textProblem } from '../../../common/validation/well-formed.js';

/** Whether a schema type is an entity this subgraph resolves (it has a reference resolver). */
function isEntity(schema: GraphQLSchema, name: string): boolean {
  const type = Object.hasOwn(schema.getTypeMap(), name) ? schema.getType(name) : undefined;
  const extensions = type?.extensions as { apollo?: { subgraph?: { resolveReference?: unknown } } } | undefined;
  return isObjectType(type) && typeof extensions?.apollo?.subgraph?.resolveReference === 'function';
}

/**
 * What is wrong with `_entities(representations:)`, if anything: each must be an object whose
 * `__typename` names one of this subgraph's entities (Post, User, Comment, Tag). Apollo's resolver
 * throws a plain Error for any other name (an internal error, 500-like) and reads `__typename`
 * of whatever it is given.
 */
export function representationProblem(schema: GraphQLSchema, representations: unknown): { field: string; message: string } | undefined {
  if (!Array.isArray(representations)) return { field: 'representations', message: 'must be a list of representations' };
  for (const [index, reference] of representations.entries()) {
    const field = `representations.${index}`;
    if (typeof reference !== 'object' || reference === null || Array.isArray(reference)) return { field, message: 'must be an object with __typename' };
    const name = (reference as { __typename?: unknown }).__typename;
    if (typeof name !== 'string') return { field: `${field}.__typename`, message: 'must be the name of an entity type' };
    const problem = textProblem(name);
    if (problem !== undefined) return { field: `${field}.__typename`, message: problem };
    if (!isEntity(schema, name)) return { field: `${field}.__typename`, message: 'must be the name of an entity type' };
  }
  return undefined;
}

/**
 * The federation schema (GRAPHQL_FEDERATION=true) with `Query._entities` refusing a malformed
 * representation as bad input (BAD_USER_INPUT naming it) before Apollo's resolver sees it.
 * Other schemas are returned as they are.
 */
export function guardEntityRepresentations(schema: GraphQLSchema): GraphQLSchema {
  const field = schema.getQueryType()?.getFields()._entities;
  if (!field?.resolve) return schema;
  const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve;
  field.resolve = (source, args: { representations?: unknown }, context, info) => {
    const problem = representationProblem(info.schema, args.representations);
    if (problem !== undefined) throw DomainError.badInput(`${problem.field} ${problem.message}`, [problem]);
    return resolve(source, args, context, info);
  };
  return schema;
}
