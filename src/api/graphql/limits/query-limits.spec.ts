import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { checkQueryLimits } from './query-limits.js';

const schema = buildSchema(`
  type Query { post(id: Int!): Post posts(first: Int = 20): [Post!]! }
  type Post { id: Int! title: String! author: User! comments(first: Int = 50): [Comment!]! }
  type User { id: Int! posts(first: Int = 20): [Post!]! }
  type Comment { id: Int! author: User! }
`);
const limits = { maxDepth: 4, maxAliases: 3, maxCost: 100 };
const check = (query: string, variables?: Record<string, unknown>) =>
  checkQueryLimits(schema, parse(query), limits, variables).map((error) => ({ code: error.extensions.code, ...error.extensions }));

describe('checkQueryLimits (shared by HTTP and WebSocket operations)', () => {
  it('accepts what fits', () => {
    expect(check('{ post(id: 1) { author { posts(first: 2) { id } } } }')).toEqual([]);
  });

  it('measures depth through fragments, inline fragments and aliases, not through introspection', () => {
    expect(check('{ post(id: 1) { author { posts(first: 1) { author { id } } } } }')).toMatchObject([{ code: 'QUERY_TOO_DEEP', depth: 5 }]);
    expect(check('{ post(id: 1) { ...A } } fragment A on Post { x: author { ... on User { posts(first: 1) { author { id } } } } }')).toMatchObject([
      { code: 'QUERY_TOO_DEEP', depth: 5 },
    ]);
    expect(check('{ __schema { types { fields { type { ofType { ofType { name } } } } } } }')).toEqual([]);
  });

  it('weighs lists by first, from literals, variables or defaults', () => {
    expect(check('{ posts(first: 5) { comments(first: 5) { id } } }')).toEqual([]);
    expect(check('query($n: Int) { posts(first: $n) { comments(first: $n) { id } } }', { n: 10 })).toMatchObject([
      { code: 'COST_LIMIT_EXCEEDED', cost: 10 * (1 + 10 * 1) },
    ]);
    expect(check('{ posts { id } }')).toEqual([]);
    expect(check('{ posts { comments { id } } }')).toMatchObject([{ code: 'COST_LIMIT_EXCEEDED', cost: 20 * (1 + 50) }]);
  });

  it('counts aliases once per use of the fragment that holds them', () => {
    expect(check('{ a: post(id: 1) { id } b: post(id: 2) { id } c: post(id: 3) { id } }')).toEqual([]);
    expect(check('{ post(id: 1) { ...F ...G } } fragment F on Post { a: id b: id } fragment G on Post { c: id d: id }')).toMatchObject([
      { code: 'QUERY_TOO_COMPLEX', aliases: 4 },
    ]);
  });

  it('refuses exponential fragment expansion in linear time', () => {
    const fragments = Array.from({ length: 60 }, (_, index) => `fragment F${index} on Query { ...F${index + 1} ...F${index + 1} }`);
    const started = Date.now();
    const errors = check(`{ ...F0 } ${fragments.join(' ')} fragment F60 on Query { posts(first: 1) { id } }`);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(errors).toMatchObject([{ code: 'QUERY_TOO_COMPLEX', maxFields: 10_000 }]);
  });

  it('reports variables that do not fit their types as BAD_USER_INPUT', () => {
    expect(check('query($n: Int) { posts(first: $n) { id } }', { n: 'many' })).toMatchObject([{ code: 'BAD_USER_INPUT' }]);
  });
});
