import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import {
  type ConstDirectiveNode,
  type ConstValueNode,
  type DocumentNode,
  type FieldNode,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  type SelectionSetNode,
  visit,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationGate } from '../src/api/graphql/gate/operation-gate.js';
import { argumentWeight } from '../src/api/graphql/limits/query-limits.js';
import { LIST_SIZE_EXTENSION, type ListSize } from '../src/common/graphql/cost.decorator.js';
import { expectData, graphql } from './support/graphql-client.js';
import { errorCodes, type ListeningApp, LiveSubscription, listen, until, type WsClient, wsClient } from './support/subscriptions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 37 item 1, CONTRACT §18 "Limits": the cost of §10 is the one budget on every transport,
 * priced like IBM's and Apollo's demand control (`__typename` and scalars 0, objects 1, lists their
 * size × their selection); the defaults admit every GraphQL operation of the README (read from the
 * README itself, with `__typename` in every selection as Apollo Client sends them) and a thread
 * page of 50 comments with two levels of 5 replies; abusive shapes are still refused, with the
 * `"cost"` item in `RateLimit`; the subgraph SDL carries the same weights as `@cost`/`@listSize`.
 */

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** Every operation of the README: its ```graphql blocks and the `"query"` strings of its examples. */
function readmeOperations(): string[] {
  const sources: string[] = [];
  for (const [, block] of README.matchAll(/```graphql\n([\s\S]*?)```/g)) sources.push(block);
  for (const [, literal] of README.matchAll(/"query":\s*"((?:[^"\\]|\\.)*)"/g)) sources.push(JSON.parse(`"${literal}"`) as string);
  const operations: string[] = [];
  for (const source of sources) {
    const document = parse(source);
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(print(definition));
    }
  }
  return operations;
}

/** What Apollo Client sends: `__typename` added to every selection set but the operation's own. */
function withTypename(query: string): string {
  const document = visit(parse(query), {
    SelectionSet: {
      leave(set: SelectionSetNode, _key, parent) {
        if ((parent as OperationDefinitionNode | undefined)?.kind === Kind.OPERATION_DEFINITION) return undefined;
        if (set.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === '__typename')) return undefined;
        const typename: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };
        return { ...set, selections: [...set.selections, typename] };
      },
    },
  }) as DocumentNode;
  return print(document);
}

const THREAD_PAGE = `query ThreadPage($id: Int!) {
  post(id: $id) {
    id title commentCount
    comments(first: 50) {
      id body author { name }
      replies(first: 5) {
        id body author { name }
        replies(first: 5) { id body author { name } }
      }
    }
  }
}`;

const uniqueAddress = () => {
  const [a, b] = randomBytes(2);
  return `198.18.${a}.${b}`;
};

const isSubscription = (query: string) => (parse(query).definitions[0] as OperationDefinitionNode).operation === 'subscription';

describe('GraphQL cost: one budget that fits real clients', () => {
  let app: TestApp;
  let urls: ListeningApp;
  let client: WsClient;

  /** The service's own figure: what the operation gate measures (and would spend) for it. */
  async function serviceCost(query: string, variables: Record<string, unknown> = {}): Promise<number> {
    const gate = app.app.get(OperationGate, { strict: false });
    const schema = app.app.get(GraphQLSchemaHost).schema;
    const verdict = await gate.admit({ query, variables }, { transport: isSubscription(query) ? 'sse' : 'http', address: uniqueAddress() }, schema);
    if (!('admitted' in verdict)) throw new Error(`Not admitted: ${JSON.stringify(verdict)}\n${query}`);
    return verdict.admitted.cost;
  }

  beforeAll(async () => {
    // The production defaults of every limit, the address's cost budget included (tests turn it off);
    // GRAPHQL_MAX_COMPLEXITY is retired: set very low, it changes nothing.
    app = await startTestApp('sqlite', { env: { TRUST_PROXY: 'true', RATE_LIMIT_COST_MAX: '50000', RESPONSE_CACHE: 'off', GRAPHQL_MAX_COMPLEXITY: '1' } });
    urls = await listen(app);
    client = wsClient(urls.ws);
    await client.connected;
  });
  afterAll(async () => {
    await client?.dispose();
    await app?.close();
  });

  it("admits every operation of the README with the default limits, as written and with Apollo Client's __typename", async () => {
    const operations = readmeOperations().filter((query) => !query.includes('_service'));
    expect(operations.length).toBeGreaterThanOrEqual(15);
    expect(operations.some((query) => query.startsWith('query Thread'))).toBe(true);
    const figures: string[] = [];
    for (const query of operations) {
      const typed = withTypename(query);
      const cost = await serviceCost(query);
      // __typename costs nothing.
      expect(await serviceCost(typed)).toBe(cost);
      expect(cost).toBeLessThanOrEqual(app.config.graphqlMaxCost);
      figures.push(`${String(cost).padStart(6)}  ${query.replace(/\s+/g, ' ')}`);
      if (isSubscription(query)) continue;
      // Over HTTP: run (mutations without a credential answer UNAUTHENTICATED, 200), never refused by a limit.
      for (const sent of [query, typed]) {
        const result = await graphql(app, sent, undefined, { headers: { 'X-Forwarded-For': uniqueAddress() } });
        expect(result.status, `${sent}\n${JSON.stringify(result.body)}`).toBe(200);
      }
    }
    console.log(`The cost of each README operation (GRAPHQL_MAX_COST ${app.config.graphqlMaxCost}):\n${figures.join('\n')}`);
  });

  it('prices the README Thread query: 1 + 50 comments × (1 + author 1 + 50 replies × (1 + author 1))', async () => {
    const thread = readmeOperations().find((query) => query.startsWith('query Thread'))!;
    expect(await serviceCost(withTypename(thread))).toBe(1 + 50 * (1 + 1 + 50 * (1 + 1)));
  });

  it('admits a thread page of 50 comments with two levels of 5 replies, each with its author, over HTTP and the WebSocket', async () => {
    const cost = await serviceCost(withTypename(THREAD_PAGE), { id: 1 });
    expect(cost).toBe(1 + 50 * (1 + 1 + 5 * (1 + 1 + 5 * (1 + 1))));
    console.log(`The thread page (50 × 5 × 5, with __typename) costs ${cost}`);
    const result = await graphql(app, withTypename(THREAD_PAGE), { id: 1 }, { headers: { 'X-Forwarded-For': uniqueAddress() } });
    expect(expectData(result).post.comments.length).toBeGreaterThan(0);
    const overWs = new LiveSubscription(client.client, withTypename(THREAD_PAGE), { id: 1 });
    await until('the page over the socket', () => overWs.results.length > 0 || overWs.error !== undefined);
    expect(overWs.error).toBeUndefined();
  });

  const deepChain = 'author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { author { posts(first: 1) { id } } } } } } } } } }';
  const copies = (field: string) => Array.from({ length: 10 }, (_, i) => `p${i}: ${field}(first: 50) { nodes { author { name } comments(first: 20) { id } } }`).join(' ');
  /** [what, as a query, inside a subscription, code] */
  const ABUSIVE: [string, string, string, string][] = [
    [
      'nested lists of 100 × 100',
      '{ posts(first: 100) { nodes { comments(first: 100) { id } } } }',
      'subscription { postCreated { author { posts(first: 100) { comments(first: 100) { id } } } } }',
      'COST_LIMIT_EXCEEDED',
    ],
    [
      'ten aliased copies of a 50-post page with 20 comments each',
      `{ ${copies('posts')} }`,
      `subscription { postCreated { author { ${Array.from({ length: 10 }, (_, i) => `p${i}: posts(first: 50) { author { name } comments(first: 20) { id } }`).join(' ')} } } }`,
      'COST_LIMIT_EXCEEDED',
    ],
    ['12 levels deep', `{ post(id: 1) { ${deepChain} } }`, `subscription { postCreated { ${deepChain} } }`, 'QUERY_TOO_DEEP'],
  ];

  it.each(ABUSIVE)('refuses %s over HTTP: 400, its code, and the "cost" item in RateLimit', async (_name, query, _subscription, code) => {
    const result = await graphql(app, query, undefined, { headers: { 'X-Forwarded-For': uniqueAddress() } });
    expect(result.status).toBe(400);
    expect(result.body.data).toBeUndefined();
    expect(result.body.errors!.map((error) => error.extensions!.code)).toEqual([code]);
    expect(result.response.headers['ratelimit-policy']).toContain('"cost";q=50000;w=');
    // Nothing was spent: the address's whole budget is left.
    expect(result.response.headers.ratelimit).toMatch(/"cost";r=50000;t=\d+/);
  });

  it('reports the cost of a refused operation', async () => {
    const result = await graphql(app, ABUSIVE[0][1]);
    expect(result.body.errors![0].extensions).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', cost: 1 + 100 * (1 + 100 * 1), maxCost: app.config.graphqlMaxCost });
  });

  it.each(ABUSIVE)('refuses %s over the WebSocket, as a query and inside a subscription', async (_name, query, subscription, code) => {
    expect(errorCodes(await new LiveSubscription(client.client, query).failed())).toEqual([code]);
    expect(errorCodes(await new LiveSubscription(client.client, subscription).failed())).toEqual([code]);
  });
});

describe('GraphQL cost: the subgraph SDL prints the weights the service counts with', () => {
  let app: TestApp;
  let sdl: string;

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { GRAPHQL_FEDERATION: 'true' } });
    sdl = expectData(await graphql(app, '{ _service { sdl } }'))._service.sdl as string;
  });
  afterAll(() => app?.close());

  it('imports @cost and @listSize in its federation link', () => {
    const link = /@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.\d+", import: \[([^\]]*)\]\)/.exec(sdl);
    expect(link).not.toBeNull();
    expect(link![1]).toContain('"@cost"');
    expect(link![1]).toContain('"@listSize"');
  });

  it('prints every list size and weight the estimator reads, from the same declaration', () => {
    const schema = app.app.get(GraphQLSchemaHost).schema;
    const printed = parse(sdl);
    const directivesOf = new Map<string, { name: string; args: Record<string, unknown> }[]>();
    const valueOf = (node: ConstValueNode): unknown =>
      node.kind === Kind.LIST ? node.values.map(valueOf) : node.kind === Kind.INT ? Number(node.value) : 'value' in node ? node.value : null;
    const at = (node: { directives?: readonly ConstDirectiveNode[] }) =>
      (node.directives ?? []).map((directive) => ({ name: directive.name.value, args: Object.fromEntries((directive.arguments ?? []).map((arg) => [arg.name.value, valueOf(arg.value)])) }));
    for (const definition of printed.definitions) {
      if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
      for (const field of definition.fields ?? []) {
        directivesOf.set(`${definition.name.value}.${field.name.value}`, at(field));
        for (const argument of field.arguments ?? []) directivesOf.set(`${definition.name.value}.${field.name.value}(${argument.name.value}:)`, at(argument));
      }
    }
    let sized = 0;
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const key: string = `${type.name}.${field.name}`;
        const declared = field.extensions?.[LIST_SIZE_EXTENSION] as ListSize | undefined;
        const listSize = directivesOf.get(key)?.find((directive) => directive.name === 'listSize');
        if (declared) {
          sized += 1;
          expect(listSize?.args, key).toEqual({
            ...(declared.assumedSize === undefined ? {} : { assumedSize: declared.assumedSize }),
            ...(declared.slicingArguments ? { slicingArguments: declared.slicingArguments, requireOneSlicingArgument: false } : {}),
            ...(declared.sizedFields ? { sizedFields: declared.sizedFields } : {}),
          });
          // A router that does not read a slicing argument's default assumes that size.
          for (const name of declared.slicingArguments ?? []) expect(declared.assumedSize, key).toBe(field.args.find((arg) => arg.name === name)?.defaultValue);
        } else {
          expect(listSize, key).toBeUndefined();
          // Every list of objects has a declared size, but lists of unknown length (API keys: one item each).
          const named = getNamedType(field.type);
          if (isListType(getNullableType(field.type)) && isObjectType(named) && !type.name.endsWith('Connection') && !['_entities', 'apiKeys'].includes(field.name)) {
            expect.fail(`${key} is a list of objects without @listSize`);
          }
        }
        for (const argument of field.args) {
          const cost = directivesOf.get(`${key}(${argument.name}:)`)?.find((directive) => directive.name === 'cost');
          expect(cost?.args.weight ?? 0, `${key}(${argument.name}:)`).toBe(argumentWeight(argument));
        }
      }
    }
    expect(sized).toBeGreaterThanOrEqual(10);
    expect(sdl).toMatch(/search: String @cost\(weight: 10\)/);
  });
});
