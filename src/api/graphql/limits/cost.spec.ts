import { buildSchema, type GraphQLField, type GraphQLSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { COST_EXTENSION, LIST_SIZE_EXTENSION } from '../../../common/graphql/cost.decorator.js';
import { complexityVariables, measureComplexity } from './query-limits.js';

const schema = buildSchema(`
  scalar _Any
  union _Entity = Post
  type Query {
    post(id: Int!): Post
    posts(first: Int = 20, search: String): [Post!]!
    _entities(representations: [_Any!]!): [_Entity]!
  }
  type Mutation { createPost(title: String!): Post! moderateComments(ids: [Int!]!): [Comment!]! }
  type Post { id: Int! title: String! tags: [Tag!]! comments(first: Int = 50): [Comment!]! }
  type Tag { id: Int! }
  type Comment { id: Int! }
`);

/** What the decorators put on the code-first fields, set by hand on this SDL-built schema. */
function declare(schema: GraphQLSchema, type: string, field: string, extensions: Record<string, unknown>): void {
  const definition = schema.getType(type) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
  Object.assign(definition.getFields()[field], { extensions });
}
declare(schema, 'Query', 'posts', { [COST_EXTENSION]: { weight: 1, arguments: { search: 10 } }, [LIST_SIZE_EXTENSION]: { slicingArguments: ['first'] } });
declare(schema, 'Post', 'tags', { [LIST_SIZE_EXTENSION]: { assumedSize: 10 } });
declare(schema, 'Mutation', 'moderateComments', { [LIST_SIZE_EXTENSION]: { sizedByLengthOf: 'ids', assumedSize: 100 } });

const limits = { maxDepth: 10, maxAliases: 10, maxComplexity: 100_000, maxCost: 100_000 };
const cost = (query: string, variables?: Record<string, unknown>) => measureComplexity(schema, parse(query), limits, variables).cost;

describe('the cost of an operation (@cost/@listSize convention)', () => {
  it('fields cost 1, lists `first` × their selection, nested lists multiply', () => {
    expect(cost('{ post(id: 1) { id title } }')).toBe(1 + 1 + 1);
    expect(cost('{ posts(first: 5) { comments(first: 5) { id } } }')).toBe(1 + 5 * (1 + 5 * 1));
    // Argument defaults count: posts 20, comments 50.
    expect(cost('{ posts { comments { id } } }')).toBe(1 + 20 * (1 + 50 * 1));
  });

  it('counts through fragments, inline fragments and aliases', () => {
    expect(cost('{ a: posts(first: 2) { ...F } b: posts(first: 2) { ... on Post { id } } } fragment F on Post { id title }')).toBe(1 + 2 * 2 + (1 + 2 * 1));
  });

  it('reads `first` from the variables, and skips what @include/@skip leave out', () => {
    const query = 'query($n: Int, $all: Boolean!) { posts(first: $n) { id comments(first: $n) @include(if: $all) { id } } }';
    expect(cost(query, { n: 3, all: false })).toBe(1 + 3 * 1);
    expect(cost(query, { n: 3, all: true })).toBe(1 + 3 * (1 + (1 + 3 * 1)));
    expect(cost('{ posts(first: 2) { id title @skip(if: true) } }')).toBe(1 + 2 * 1);
  });

  it('adds the declared weights: an argument priced when given, an assumed list size', () => {
    expect(cost('{ posts(first: 2) { id } }')).toBe(1 + 2 * 1);
    expect(cost('{ posts(first: 2, search: "tea") { id } }')).toBe(1 + 10 + 2 * 1);
    expect(cost('query($q: String) { posts(first: 2, search: $q) { id } }', { q: null })).toBe(1 + 2 * 1);
    expect(cost('{ post(id: 1) { tags { id } } }')).toBe(1 + (1 + 10 * 1));
  });

  it('prices a mutation field 10, a list sliced by a list argument by its length', () => {
    expect(cost('mutation { createPost(title: "x") { id } }')).toBe(10 + 1);
    expect(cost('mutation { a: createPost(title: "x") { id } b: createPost(title: "y") { id } }')).toBe(2 * (10 + 1));
    expect(cost('mutation { moderateComments(ids: [1, 2, 3]) { id } }')).toBe(10 + 3 * 1);
  });

  it('sizes _entities by its representations', () => {
    const query = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Post { id title } } }';
    expect(cost(query, { r: [{ __typename: 'Post', id: 1 }, { __typename: 'Post', id: 2 }, { __typename: 'Post', id: 3 }] })).toBe(1 + 3 * 2);
  });

  it('refuses past maxCost with COST_LIMIT_EXCEEDED and the cost; QUERY_TOO_COMPLEX comes first when both are over', () => {
    const tight = { ...limits, maxComplexity: 1000, maxCost: 50 };
    const costly = measureComplexity(schema, parse('{ posts(first: 2, search: "x") { tags { id } } }'), tight);
    expect(costly.cost).toBe(1 + 10 + 2 * (1 + 10 * 1));
    expect(costly.complexity).toBe(1 + 2 * (1 + 1));
    expect(costly.errors).toEqual([]);
    const over = measureComplexity(schema, parse('{ posts(first: 5, search: "x") { tags { id } } }'), tight);
    expect(over.errors.map((error) => error.extensions)).toEqual([{ code: 'COST_LIMIT_EXCEEDED', cost: 1 + 10 + 5 * 11, maxCost: 50 }]);
    const both = measureComplexity(schema, parse('{ posts(first: 100) { comments(first: 100) { id } } }'), tight);
    expect(both.errors.map((error) => error.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('names the variables that can change the cost: slicing and priced arguments too (with the schema)', () => {
    const document = parse(
      'query($id: Int!, $q: String, $ids: [Int!]!, $r: [_Any!]!) { post(id: $id) { id } posts(search: $q) { id } _entities(representations: $r) { __typename } } mutation M($ids: [Int!]!) { moderateComments(ids: $ids) { id } }',
    );
    expect(complexityVariables(document, schema)).toEqual(['ids', 'q', 'r']);
  });
});
