import { HeaderMap } from '@apollo/server';
import { GraphQLError } from 'graphql';

/** The gate's own verdict on a request, with the HTTP status (and headers) it is answered with on every transport. */
export function refusal(code: string, status: number, message: string, headers?: Record<string, string>): GraphQLError {
  const http = headers ? { status, headers: new HeaderMap(Object.entries(headers)) } : { status };
  return new GraphQLError(message, { extensions: { code, http } });
}

/** A graphql-js or limit error answered with `status`, its code and nodes kept. */
export function withStatus(error: GraphQLError, status: number): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, extensions: { ...error.extensions, http: { status } } });
}
