import { buildSchema, type GraphQLField, type GraphQLSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { COST_EXTENSION, LIST_SIZE_EXTENSION } from '../../../common/graphql/cost.decorator.js';
import { costVariables, measureCost } from './query-limits.js';

// The `@cost` on `search` is the argument's declaration itself (ArgumentCost); fields' weights are extensions.
const schema = buildSchema(`
  directive @cost(weight: Int!) on ARGUMENT_DEFINITION | FIELD_DEFINITION
  scalar _Any
  union _Entity = Post
  type Query {
    post(id: Int!): Post
    posts(first: Int = 20, search: String @cost(weight: 10)): PostConnection!
    list(first: Int = 20): [Post!]!
    _entities(representations: [_Any!]!): [_Entity]!
  }
  type Mutation { createPost(title: String!): Post! moderateComments(ids: [Int!]!): [Comment!]! }
  type PostConnection { nodes: [Post!]! edges: [PostEdge!]! pageInfo: PageInfo! totalCount: Int! }
  type PostEdge { cursor: String! node: Post! }
  type PageInfo { hasNextPage: Boolean! }
  type Post { id: Int! title: String! author: User! tags: [Tag!]! comments(first: Int = 50): [Comment!]! heavy: Int! }
  type User { name: String! }
  type Tag { id: Int! }
  type Comment { id: Int! }
`);

/** What the decorators put on the code-first fields, set by hand on this SDL-built schema. */
function declare(schema: GraphQLSchema, type: string, field: string, extensions: Record<string, unknown>): void {
  const definition = schema.getType(type) as unknown as { getFields(): Record<string, GraphQLField<unknown, unknown>> };
  Object.assign(definition.getFields()[field], { extensions });
}
declare(schema, 'Query', 'posts', { [LIST_SIZE_EXTENSION]: { slicingArguments: ['first'], assumedSize: 20, sizedFields: ['edges', 'nodes'] } });
declare(schema, 'Post', 'comments', { [LIST_SIZE_EXTENSION]: { slicingArguments: ['first'], assumedSize: 50 } });
declare(schema, 'Post', 'tags', { [LIST_SIZE_EXTENSION]: { assumedSize: 10 } });
declare(schema, 'Post', 'heavy', { [COST_EXTENSION]: { weight: 7 } });
declare(schema, 'Mutation', 'moderateComments', { [LIST_SIZE_EXTENSION]: { assumedSize: 100 } });

const limits = { maxCost: 100_000 };
const cost = (query: string, variables?: Record<string, unknown>) => measureCost(schema, parse(query), limits, variables).cost;

describe('the cost of an operation (IBM/Apollo @cost/@listSize convention)', () => {
  it('prices __typename, scalars and enums 0, an object 1', () => {
    expect(cost('{ post(id: 1) { id title } }')).toBe(1);
    expect(cost('{ post(id: 1) { __typename id title author { __typename name } } }')).toBe(2);
    expect(cost('{ __typename }')).toBe(0);
  });

  it("multiplies a connection's edges and nodes by its `first`, not its pageInfo or totalCount", () => {
    expect(cost('{ posts(first: 10) { nodes { id title } } }')).toBe(1 + 10 * 1);
    expect(cost('{ posts(first: 10) { totalCount pageInfo { hasNextPage } edges { cursor node { title } } } }')).toBe(1 + 1 + 10 * (1 + 1));
    // Argument defaults count: posts 20, comments 50; nested lists multiply.
    expect(cost('{ posts { nodes { comments { id } } } }')).toBe(1 + 20 * (1 + 50 * 1));
    expect(cost('{ posts(first: 5) { nodes { comments(first: 5) { id } } } }')).toBe(1 + 5 * (1 + 5 * 1));
  });

  it('a list without @listSize: its `first`, else 1; an assumed size', () => {
    expect(cost('{ list(first: 3) { id } }')).toBe(3);
    expect(cost('{ post(id: 1) { tags { id } } }')).toBe(1 + 10 * 1);
  });

  it('counts through fragments, inline fragments and aliases', () => {
    expect(cost('{ a: posts(first: 2) { ...F } b: posts(first: 2) { ... on PostConnection { nodes { id } } } } fragment F on PostConnection { nodes { author { name } } }')).toBe(
      1 + 2 * (1 + 1) + (1 + 2 * 1),
    );
  });

  it('reads `first` from the variables, and skips what @include/@skip leave out', () => {
    const query = 'query($n: Int, $all: Boolean!) { posts(first: $n) { nodes { id comments(first: $n) @include(if: $all) { id } } } }';
    expect(cost(query, { n: 3, all: false })).toBe(1 + 3 * 1);
    expect(cost(query, { n: 3, all: true })).toBe(1 + 3 * (1 + 3 * 1));
    expect(cost('{ post(id: 1) { author @skip(if: true) { name } } }')).toBe(1);
  });

  it('adds the declared weights: an argument when given, a field in place of its type', () => {
    expect(cost('{ posts(first: 2, search: "tea") { nodes { id } } }')).toBe(1 + 10 + 2 * 1);
    expect(cost('query($q: String) { posts(first: 2, search: $q) { nodes { id } } }', { q: null })).toBe(1 + 2 * 1);
    expect(cost('{ post(id: 1) { heavy } }')).toBe(1 + 7);
  });

  it('prices a mutation operation 10 more; a list by its assumed size', () => {
    expect(cost('mutation { createPost(title: "x") { id } }')).toBe(10 + 1);
    expect(cost('mutation { a: createPost(title: "x") { id } b: createPost(title: "y") { id } }')).toBe(10 + 2 * 1);
    expect(cost('mutation { moderateComments(ids: [1, 2, 3]) { id } }')).toBe(10 + 100 * 1);
  });

  it('sizes _entities by its representations', () => {
    const query = 'query($r: [_Any!]!) { _entities(representations: $r) { ... on Post { id author { name } } } }';
    expect(cost(query, { r: [{ __typename: 'Post', id: 1 }, { __typename: 'Post', id: 2 }, { __typename: 'Post', id: 3 }] })).toBe(3 * (1 + 1));
  });

  it('refuses past maxCost with COST_LIMIT_EXCEEDED and the cost', () => {
    const over = measureCost(schema, parse('{ posts(first: 5, search: "x") { nodes { tags { id } } } }'), { maxCost: 50 });
    expect(over.errors.map((error) => error.extensions)).toEqual([{ code: 'COST_LIMIT_EXCEEDED', cost: 1 + 10 + 5 * 11, maxCost: 50 }]);
    expect(measureCost(schema, parse('{ posts(first: 3, search: "x") { nodes { tags { id } } } }'), { maxCost: 50 }).errors).toEqual([]);
  });

  it('refuses a fragment bomb of zero-cost fields (QUERY_TOO_COMPLEX), in linear time', () => {
    const fragments = Array.from({ length: 40 }, (_, index) => `fragment F${index} on Query { ...F${index + 1} ...F${index + 1} }`);
    const measured = measureCost(schema, parse(`{ ...F0 } ${fragments.join(' ')} fragment F40 on Query { __typename }`), limits);
    expect(measured.errors.map((error) => error.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
  });

  it('reports variables that do not fit their types as BAD_USER_INPUT', () => {
    const measured = measureCost(schema, parse('query($n: Int) { list(first: $n) { id } }'), limits, { n: 'many' });
    expect(measured.errors.map((error) => error.extensions.code)).toEqual(['BAD_USER_INPUT']);
  });

  it('names the variables that can change the cost: slicing and priced arguments, directives', () => {
    const document = parse(
      'query($id: Int!, $q: String, $n: Int, $r: [_Any!]!, $show: Boolean!) { post(id: $id) { id comments(first: $n) @include(if: $show) { id } } posts(search: $q) { totalCount } _entities(representations: $r) { __typename } }',
    );
    expect(costVariables(document, schema)).toEqual(['n', 'q', 'r', 'show']);
    expect(costVariables(parse('query($id: Int!) { post(id: $id) { title } }'), schema)).toEqual([]);
  });
});
