import type { Context } from '@opentelemetry/api';
import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { runInContext } from './spans.js';

/** What a GraphQL context carries when its operation has a span (see traceResolvers). */
interface Traced {
  traceContext?: Context;
}

/**
 * Runs every resolver that has code of its own inside its operation's span (the context's
 * `traceContext`), so the statements it causes — through the DataLoaders too, whose batches are
 * scheduled by the first load — are that span's children rather than the HTTP request's. Apollo
 * runs the execution outside its plugins' hooks, so a plugin alone cannot make its span the active
 * one. Applied to the schema only with tracing on: with it off no resolver is wrapped.
 */
export function traceResolvers(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve) continue;
      field.resolve = inOperationSpan(resolve);
    }
  }
  return schema;
}

function inOperationSpan(resolve: GraphQLFieldResolver<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  return (source, args, contextValue, info) => {
    const active = (contextValue as Traced | undefined)?.traceContext;
    return active ? runInContext(active, resolve, source, args, contextValue, info) : resolve(source, args, contextValue, info);
  };
}
