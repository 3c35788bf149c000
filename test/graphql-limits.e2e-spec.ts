import { getIntrospectionQuery } from 'graphql';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectData, expectError, graphql, type GraphQLResult } from './support/graphql-client.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Depth (GRAPHQL_MAX_DEPTH, default 10), the cost (GRAPHQL_MAX_COST, default 10000: objects 1,
 * scalars 0, lists by `first`; CONTRACT §18), aliases, tokens and document size: all refused
 * before anything runs, counted through fragments, inline fragments and aliases.
 */

/** A chain of `depth` nested fields: post → author → posts → author → ... → id. */
function chain(depth: number): string[] {
  const fields = ['post(id: 1)'];
  for (let level = 2; level < depth; level++) fields.push(level % 2 === 0 ? 'author' : 'posts(first: 1)');
  return fields;
}

function nested(depth: number): string {
  return `{ ${chain(depth).reduceRight((inner, field) => `${field} { ${inner} }`, 'id')} }`;
}

/** The same chain, each level in a named fragment of its own. */
function throughFragments(depth: number): string {
  const fields = chain(depth);
  const types = fields.map((field) => (field.startsWith('author') ? 'User' : 'Post'));
  const fragments = fields.slice(1).map((field, index) => {
    const next = index + 2 < fields.length ? `...F${index + 2}` : 'id';
    return `fragment F${index + 1} on ${types[index]} { ${field} { ${next} } }`;
  });
  const start = fields.length > 1 ? '...F1' : 'id';
  return `{ ${fields[0]} { ${start} } }\n${fragments.join('\n')}`;
}

/** The same chain with every level inside an inline fragment and under an alias. */
function throughInlineFragments(depth: number): string {
  const fields = chain(depth);
  const types = fields.map((field) => (field.startsWith('author') ? 'User' : 'Post'));
  const inner = fields
    .slice(1)
    .reduceRight((acc, field, index) => `... on ${types[index]} { alias${index}: ${field} { ${acc} } }`, 'id');
  return `{ root: ${fields[0]} { ${inner} } }`;
}

function expectRefused(result: GraphQLResult, code: string): void {
  expect(result.status).toBe(400);
  expect(result.body.data).toBeUndefined();
  expectError(result, code);
}

describeEachDatabase('GraphQL limits', (kind) => {
  const app = useApp(kind, { signIn: [] });
  const gql = (query: string, variables?: Record<string, unknown>) => graphql(app, query, variables);

  describe('depth (default 10)', () => {
    it('runs a query 10 levels deep and refuses one 11 deep, before running it', async () => {
      expectData(await gql(nested(10)));
      const result = await gql(nested(11));
      expectRefused(result, 'QUERY_TOO_DEEP');
      expect(result.body.errors![0].extensions).toMatchObject({ depth: 11, maxDepth: 10 });
    });

    it('counts through named fragments', async () => {
      expectData(await gql(throughFragments(10)));
      expectRefused(await gql(throughFragments(11)), 'QUERY_TOO_DEEP');
    });

    it('counts through inline fragments and aliases', async () => {
      expectData(await gql(throughInlineFragments(10)));
      expectRefused(await gql(throughInlineFragments(11)), 'QUERY_TOO_DEEP');
    });

    it('counts a fragment where it is spread, not where it is defined', async () => {
      const query = `{ post(id: 1) { ...Deep } }
        fragment Deep on Post { author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { id } } } } } } } } } } }`;
      expectRefused(await gql(query), 'QUERY_TOO_DEEP');
    });

    it("leaves introspection's own nesting alone: GraphiQL's introspection query runs", async () => {
      const data = expectData(await gql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })));
      expect(data.__schema.types.length).toBeGreaterThan(10);
    });
  });

  describe('cost (default 10000: objects 1, scalars 0, lists by first)', () => {
    it('refuses nested lists whose sizes multiply past the budget', async () => {
      const result = await gql('{ posts(first: 100) { nodes { comments(first: 100) { id } } } }');
      expectRefused(result, 'COST_LIMIT_EXCEEDED');
      expect(result.body.errors![0].extensions).toMatchObject({ cost: 1 + 100 * (1 + 100 * 1), maxCost: 10000 });
      expectData(await gql('{ posts(first: 10) { nodes { comments(first: 10) { id } } } }'));
    });

    it('counts through fragments and inline fragments', async () => {
      expectRefused(await gql('{ posts(first: 100) { ...P } } fragment P on PostConnection { nodes { comments(first: 100) { id } } }'), 'COST_LIMIT_EXCEEDED');
      expectRefused(await gql('{ posts(first: 100) { ... on PostConnection { nodes { ... on Post { comments(first: 100) { id } } } } } }'), 'COST_LIMIT_EXCEEDED');
    });

    it('counts every alias of a field: ten copies of an admitted page add up', async () => {
      // 1 + 50 × (1 + author 1 + 20 comments × 1) = 1101; scalars cost nothing (§18), so the copies carry objects.
      const one = 'posts(first: 50) { nodes { id title author { name } comments(first: 20) { id } } }';
      expectData(await gql(`{ ${one} }`));
      const copies = Array.from({ length: 10 }, (_, index) => `p${index}: ${one}`).join(' ');
      expectRefused(await gql(`{ ${copies} }`), 'COST_LIMIT_EXCEEDED');
    });

    it('counts `first` given in variables, per request (the same document passes or fails by its variables)', async () => {
      const query = 'query($n: Int) { posts(first: $n) { nodes { comments(first: $n) { id } } } }';
      expectData(await gql(query, { n: 5 }));
      expectRefused(await gql(query, { n: 100 }), 'COST_LIMIT_EXCEEDED');
      expectData(await gql(query, { n: 5 }));
      // Without the variable, the defaults count: 20 posts × 50 comments, 1 + 20 × 51 = 1021, admitted.
      expectData(await gql(query));
    });

    it('leaves out what @include/@skip leave out', async () => {
      const query = 'query($big: Boolean!) { posts(first: 100) { nodes { comments(first: 100) @include(if: $big) { id } } } }';
      expectData(await gql(query, { big: false }));
      expectRefused(await gql(query, { big: true }), 'COST_LIMIT_EXCEEDED');
    });

    it('refuses a fragment "bomb" (fragments spreading each other twice, 2^40 fields) at once', async () => {
      const fragments = Array.from({ length: 40 }, (_, index) => `fragment F${index} on Query { ...F${index + 1} ...F${index + 1} }`);
      fragments.push('fragment F40 on Query { __typename }');
      const started = Date.now();
      const result = await gql(`{ ...F0 }\n${fragments.join('\n')}`);
      expect(Date.now() - started).toBeLessThan(2000);
      expectRefused(result, 'QUERY_TOO_COMPLEX');
    });
  });

  describe('aliases, tokens and document size', () => {
    it('allows 50 aliases and refuses 51, counted through fragments', async () => {
      const aliases = (count: number) => Array.from({ length: count }, (_, index) => `a${index}: __typename`).join(' ');
      expectData(await gql(`{ ${aliases(50)} }`));
      const result = await gql(`{ ${aliases(51)} }`);
      expectRefused(result, 'QUERY_TOO_COMPLEX');
      expect(result.body.errors![0].extensions).toMatchObject({ aliases: 51, maxAliases: 50 });
      // Ten aliases in a fragment spread under six aliased fields: 66.
      const posts = Array.from({ length: 6 }, (_, index) => `p${index}: post(id: 1) { ...Ten }`).join(' ');
      const ten = Array.from({ length: 10 }, (_, index) => `t${index}: id`).join(' ');
      expectRefused(await gql(`{ ${posts} } fragment Ten on Post { ${ten} }`), 'QUERY_TOO_COMPLEX');
    });

    it('refuses 10,000 aliases while parsing (token limit), quickly', async () => {
      // Compact, to stay under the document size limit: 30,000 tokens in about 90 kB.
      const query = `{post(id:1){${Array.from({ length: 10_000 }, (_, index) => `a${index}:id`).join(' ')}}}`;
      expect(query.length).toBeLessThan(102_400);
      const started = Date.now();
      const result = await gql(query);
      expect(Date.now() - started).toBeLessThan(1000);
      expectRefused(result, 'GRAPHQL_PARSE_FAILED');
      expect(result.body.errors![0].message).toMatch(/tokens/);
      // With longer names the same document is over the size limit and refused before parsing.
      const long = await gql(`{ ${Array.from({ length: 10_000 }, (_, index) => `alias${index}: __typename`).join(' ')} }`);
      expect(long.status).toBe(413);
      expectError(long, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a 1 MB document before parsing it: 413 PAYLOAD_TOO_LARGE', async () => {
      const query = `{ __typename } # ${'x'.repeat(1_000_000)}`;
      const started = Date.now();
      const result = await gql(query);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(result.status).toBe(413);
      expectError(result, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a body over the request size limit with 413 (problem+json, before GraphQL)', async () => {
      const response = await request(app.server)
        .post('/graphql')
        .set('content-type', 'application/json')
        .send(JSON.stringify({ query: `{ __typename } # ${'x'.repeat(2 * 1_048_576)}` }));
      expect(response.status).toBe(413);
      expect(response.body.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });

  describe('configured limits', () => {
    let strict: TestApp;
    beforeAll(async () => {
      strict = await startTestApp(kind, {
        env: { GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_COST: '20', GRAPHQL_MAX_ALIASES: '2', GRAPHQL_MAX_TOKENS: '100', GRAPHQL_MAX_DOCUMENT_BYTES: '2048' },
      });
    });
    afterAll(() => strict?.close());

    it('GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_COST, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_TOKENS, GRAPHQL_MAX_DOCUMENT_BYTES', async () => {
      const run = (query: string) => graphql(strict, query);
      expectData(await run(nested(3)));
      expectRefused(await run(nested(4)), 'QUERY_TOO_DEEP');
      expectData(await run('{ posts(first: 10) { nodes { id } } }'));
      expectRefused(await run('{ posts(first: 30) { nodes { id } } }'), 'COST_LIMIT_EXCEEDED');
      expectData(await run('{ a: __typename b: __typename }'));
      expectRefused(await run('{ a: __typename b: __typename c: __typename }'), 'QUERY_TOO_COMPLEX');
      expectRefused(await run(`{ ${'__typename '.repeat(120)}}`), 'GRAPHQL_PARSE_FAILED');
      const big = await run(`{ __typename } # ${'x'.repeat(3000)}`);
      expect(big.status).toBe(413);
      expectError(big, 'PAYLOAD_TOO_LARGE');
    });
  });
});
