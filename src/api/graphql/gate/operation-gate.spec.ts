import { ThrottlerStorageService } from '@nestjs/throttler';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { AuthService } from '../../../auth/auth.service.js';
import { RateLimiter } from '../../../common/rate-limit/rate-limiter.js';
import { loadConfig } from '../../../config/app-config.js';
import { type GateVerdict, OperationGate, type Transport } from './operation-gate.js';
import { nestsDeeperThan } from './request-checks.js';
import { SubscriptionBudget } from './subscription-budget.js';

const schema = buildSchema(`
  type Query { post(id: Int!): Post posts(first: Int = 20): [Post!]! }
  type Post { id: Int! comments(first: Int = 5): [Comment!]! }
  type Comment { id: Int! }
  type Subscription { postCreated: Post! }
`);

function makeGate(env: Record<string, string> = {}) {
  const config = loadConfig({
    NODE_ENV: 'test',
    GRAPHQL_MAX_DEPTH: '5',
    GRAPHQL_MAX_ALIASES: '5',
    GRAPHQL_MAX_COST: '100',
    ...env,
  });
  const auth = { authenticate: async () => null } as unknown as AuthService;
  return new OperationGate(auth, new RateLimiter(new ThrottlerStorageService(), null, config), config, null);
}

const codeOf = (verdict: GateVerdict) =>
  'admitted' in verdict ? null : 'refused' in verdict ? verdict.refused.extensions.code : verdict.invalid[0].extensions.code;

async function verdict(gate: OperationGate, query: string | undefined, variables: Record<string, unknown> = {}, options: { transport?: Transport; extensions?: object; address?: string } = {}) {
  return gate.admit({ query, variables, extensions: options.extensions }, { transport: options.transport ?? 'http', address: options.address ?? '192.0.2.1' }, schema);
}

describe('OperationGate: limits remembered per document and per value of the variables that matter', () => {
  it('measures again when a variable that changes the cost changes, whatever came before', async () => {
    const gate = makeGate();
    const query = 'query($id: Int!, $n: Int) { post(id: $id) { comments(first: $n) { id } } }';
    expect(codeOf(await verdict(gate, query, { id: 1, n: 5 }))).toBeNull();
    expect(codeOf(await verdict(gate, query, { id: 2, n: 500 }))).toBe('COST_LIMIT_EXCEEDED');
    expect(codeOf(await verdict(gate, query, { id: 3, n: 5 }))).toBeNull();
    expect(codeOf(await verdict(gate, query, { id: 4, n: 500 }))).toBe('COST_LIMIT_EXCEEDED');
  });

  it('follows @include with a variable', async () => {
    const gate = makeGate();
    const query = 'query($all: Boolean!) { posts(first: 50) { id comments(first: 5) @include(if: $all) { id } } }';
    expect(codeOf(await verdict(gate, query, { all: false }))).toBeNull();
    expect(codeOf(await verdict(gate, query, { all: true }))).toBe('COST_LIMIT_EXCEEDED');
    expect(codeOf(await verdict(gate, query, { all: false }))).toBeNull();
  });

  it('does not keep a verdict on variables that do not fit their types', async () => {
    const gate = makeGate();
    const query = 'query($n: Int) { posts(first: $n) { id } }';
    expect(codeOf(await verdict(gate, query, { n: 'many' }))).toBe('BAD_USER_INPUT');
    expect(codeOf(await verdict(gate, query, { n: 'many' }))).toBe('BAD_USER_INPUT');
    expect(codeOf(await verdict(gate, query, { n: 3 }))).toBeNull();
  });

  it('gives the admitted operation its cost: 3 posts of 1, their scalars 0', async () => {
    const result = await verdict(makeGate(), '{ posts(first: 3) { id __typename } }');
    expect('admitted' in result && result.admitted.cost).toBe(3);
  });

  it('refuses past GRAPHQL_MAX_COST with COST_LIMIT_EXCEEDED (400), on every transport', async () => {
    const gate = makeGate({ GRAPHQL_MAX_COST: '20' });
    for (const transport of ['http', 'ws', 'sse'] as const) {
      const result = await verdict(gate, '{ posts(first: 30) { id } }', {}, { transport });
      expect('refused' in result && result.refused.extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', cost: 30, maxCost: 20, http: { status: 400 } });
    }
  });

  it("spends each admitted operation's cost from its address's budget (RATE_LIMIT_COST_MAX), on every transport", async () => {
    const gate = makeGate({ RATE_LIMIT_COST_MAX: '10' });
    const query = '{ posts(first: 4) { id } }';
    const first = await verdict(gate, query, {}, { transport: 'ws' });
    expect('admitted' in first && first.admitted.budget).toMatchObject({ policy: 'cost', limit: 10, remaining: 6, exceeded: false });
    expect(codeOf(await verdict(gate, query, {}, { transport: 'sse' }))).toBeNull();
    const refused = await verdict(gate, query);
    expect('refused' in refused && refused.refused.extensions).toMatchObject({ code: 'RATE_LIMITED', http: { status: 429 } });
    expect('refused' in refused && refused.budget).toMatchObject({ remaining: 0, exceeded: true });
    expect(codeOf(await verdict(gate, query, {}, { address: '192.0.2.2' }))).toBeNull();
  });
});

describe('OperationGate: client input never becomes an internal error', () => {
  it('refuses variables nested deeper than any input type, without recursion', async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(nestsDeeperThan(deep, 32)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 32)).toBe(false);
    expect(codeOf(await verdict(makeGate(), 'query($n: Int) { posts(first: $n) { id } }', { n: deep }))).toBe('BAD_USER_INPUT');
  });

  it('a validation rule that throws (a directive without its argument on a subscription) is a validation error', async () => {
    const result = await verdict(makeGate(), 'subscription { postCreated @skip { id } }', {}, { transport: 'ws' });
    expect(codeOf(result)).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('a subscription over HTTP is refused with 400; over a live transport it is admitted', async () => {
    const gate = makeGate();
    const http = await verdict(gate, 'subscription { postCreated { id } }');
    expect(codeOf(http)).toBe('BAD_REQUEST');
    expect('refused' in http && (http.refused.extensions.http as { status: number }).status).toBe(400);
    expect(codeOf(await verdict(gate, 'subscription { postCreated { id } }', {}, { transport: 'sse' }))).toBeNull();
  });

  it('refuses a body that is not the shape of a GraphQL request', async () => {
    const gate = makeGate();
    for (const raw of [{ query: 42 }, { query: '{ posts { id } }', variables: [1] }, { query: '{ posts { id } }', operationName: 7 }, { query: '{ posts { id } }', extensions: 'x' }]) {
      expect(codeOf(await gate.admit(raw, { transport: 'ws', address: 'a' }, schema))).toBe('BAD_REQUEST');
    }
  });
});

describe('OperationGate: automatic persisted queries', () => {
  const hashOf = async (text: string) => (await import('./document-hash.js')).sha256(text);

  it('stores a registered document without its comments, and runs it by hash', async () => {
    const gate = makeGate();
    const padded = `# ${'x'.repeat(50_000)}\n{ posts { id } }`;
    const hash = await hashOf(padded);
    expect(codeOf(await verdict(gate, undefined, {}, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(codeOf(await verdict(gate, padded, {}, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }))).toBeNull();
    const byHash = await verdict(gate, undefined, {}, { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });
    expect('admitted' in byHash && byHash.admitted.query).toBe('{posts{id}}');
  });

  it('registrations per address are limited: beyond the limit a document runs but is not stored', async () => {
    const gate = makeGate({ GRAPHQL_APQ_REGISTRATIONS_MAX: '2' });
    const documents = ['{ post(id: 1) { id } }', '{ post(id: 2) { id } }', '{ post(id: 3) { id } }'];
    for (const document of documents) {
      const extensions = { persistedQuery: { version: 1, sha256Hash: await hashOf(document) } };
      expect(codeOf(await verdict(gate, document, {}, { extensions }))).toBeNull();
    }
    const codes = [];
    for (const document of documents) {
      codes.push(codeOf(await verdict(gate, undefined, {}, { extensions: { persistedQuery: { version: 1, sha256Hash: await hashOf(document) } } })));
    }
    expect(codes).toEqual([null, null, 'PERSISTED_QUERY_NOT_FOUND']);
    // Another address has its own allowance.
    const third = documents[2];
    const extensions = { persistedQuery: { version: 1, sha256Hash: await hashOf(third) } };
    await verdict(gate, third, {}, { extensions, address: '192.0.2.2' });
    expect(codeOf(await verdict(gate, undefined, {}, { extensions }))).toBeNull();
  });

  it('the store is bounded in bytes: the oldest registrations go first', async () => {
    const gate = makeGate({ GRAPHQL_APQ_MAX_MB: '1', GRAPHQL_APQ_REGISTRATIONS_MAX: '0', GRAPHQL_MAX_DOCUMENT_BYTES: '400000' });
    // A 200 KB alias survives stripping: each document really takes 200 KB.
    const big = (n: number) => `{ a${n}${'x'.repeat(200_000)}: post(id: 1) { id } }`;
    const extensionsOf = async (n: number) => ({ persistedQuery: { version: 1, sha256Hash: await hashOf(big(n)) } });
    for (let n = 0; n < 8; n++) expect(codeOf(await verdict(gate, big(n), {}, { extensions: await extensionsOf(n) }))).toBeNull();
    expect(codeOf(await verdict(gate, undefined, {}, { extensions: await extensionsOf(0) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(codeOf(await verdict(gate, undefined, {}, { extensions: await extensionsOf(7) }))).toBeNull();
  });
});

describe('SubscriptionBudget', () => {
  it('counts each distinct operation of an address once, refuses beyond the budget, frees on release', () => {
    const budget = new SubscriptionBudget(100);
    const a = budget.hold('a', 'doc-1', 60);
    const again = budget.hold('a', 'doc-1', 60);
    expect(typeof a).toBe('function');
    expect(typeof again).toBe('function');
    expect(budget.costOf('a')).toBe(60);
    const refused = budget.hold('a', 'doc-2', 50);
    expect(typeof refused).not.toBe('function');
    expect(typeof budget.hold('b', 'doc-2', 50)).toBe('function');
    (a as () => void)();
    expect(budget.costOf('a')).toBe(60);
    (again as () => void)();
    expect(budget.costOf('a')).toBe(0);
    expect(typeof budget.hold('a', 'doc-2', 50)).toBe('function');
  });
});
