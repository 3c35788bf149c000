import type { GraphQLRequestContextDidResolveOperation } from '@apollo/server';
import { buildSchema, type GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { queryLimitsPlugin } from './query-limits.plugin.js';

const schema = buildSchema(`
  type Query { post(id: Int!): Post posts(first: Int = 20): [Post!]! }
  type Post { id: Int! comments(first: Int = 5): [Comment!]! }
  type Comment { id: Int! }
`);

/** Runs the plugin's didResolveOperation as Apollo would; returns the error code it throws, or null. */
async function verdict(plugin: ReturnType<typeof queryLimitsPlugin>, document: ReturnType<typeof parse>, variables: Record<string, unknown>) {
  const listener = await plugin.requestDidStart!({} as never);
  const context = { schema, document, request: { variables }, operationName: null } as unknown as GraphQLRequestContextDidResolveOperation<object>;
  try {
    await listener!.didResolveOperation!(context);
    return null;
  } catch (error) {
    return (error as GraphQLError).extensions.code;
  }
}

describe('queryLimitsPlugin (remembers costs per document and per value of the variables that matter)', () => {
  const plugin = () => queryLimitsPlugin({ maxDepth: 5, maxAliases: 5, maxComplexity: 100 });

  it('measures again when a variable that changes the cost changes, whatever came before', async () => {
    const limits = plugin();
    const document = parse('query($id: Int!, $n: Int) { post(id: $id) { comments(first: $n) { id } } }');
    expect(await verdict(limits, document, { id: 1, n: 5 })).toBeNull();
    expect(await verdict(limits, document, { id: 2, n: 500 })).toBe('QUERY_TOO_COMPLEX');
    expect(await verdict(limits, document, { id: 3, n: 5 })).toBeNull();
    expect(await verdict(limits, document, { id: 4, n: 500 })).toBe('QUERY_TOO_COMPLEX');
  });

  it('follows @include with a variable', async () => {
    const limits = plugin();
    const document = parse('query($all: Boolean!) { posts(first: 50) { id comments(first: 5) @include(if: $all) { id } } }');
    expect(await verdict(limits, document, { all: false })).toBeNull();
    expect(await verdict(limits, document, { all: true })).toBe('QUERY_TOO_COMPLEX');
    expect(await verdict(limits, document, { all: false })).toBeNull();
  });

  it('does not keep a verdict on variables that do not fit their types', async () => {
    const limits = plugin();
    const document = parse('query($n: Int) { posts(first: $n) { id } }');
    expect(await verdict(limits, document, { n: 'many' })).toBe('BAD_USER_INPUT');
    expect(await verdict(limits, document, { n: 'many' })).toBe('BAD_USER_INPUT');
    expect(await verdict(limits, document, { n: 3 })).toBeNull();
  });
});
