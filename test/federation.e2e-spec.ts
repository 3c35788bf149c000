import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import {
  type Caller,
  CALLER_LABELS,
  CALLER_NAMES,
  type CallerName,
  commentOn,
  createPostIn,
  type EditorialPost,
  editorialEnv,
  expectNoMarker,
  marker,
  mayRead,
  type PostStatus,
  signInCallers,
  sseClient,
  STATES,
} from './support/editorial.js';
import { expectData, expectError, graphql, metricValue } from './support/graphql-client.js';
import type { CommentBody } from './support/resources.js';
import { LiveSubscription, listen, waitForSubscribers, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §10: with GRAPHQL_FEDERATION=true, /graphql is an Apollo Federation 2 subgraph. It
 * composes with another subgraph (Apollo's composition library), answers through Apollo's
 * gateway, resolves N representations with one SQL statement, and the read policy applies to
 * entities. Subscriptions and REST keep working on the same process.
 */

const ENTITIES = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Post { id title } ... on User { id name } ... on Comment { id body } ... on Tag { id name } } }';

/** A "reviews" subgraph: reviews of our posts, which it only knows by id. */
const REVIEWS_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
  type Post @key(fields: "id", resolvable: false) { id: Int! }
  type Review { id: ID! stars: Int! post: Post }
  type Query { reviews: [Review!]! }
`;

async function startReviews(postIds: number[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const reviews = postIds.map((id, index) => ({ id: `r${index}`, stars: index + 1, post: { __typename: 'Post', id } }));
  const server = new ApolloServer({
    schema: buildSubgraphSchema([{ typeDefs: parse(REVIEWS_SDL), resolvers: { Query: { reviews: () => reviews } } }]),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { url, stop: () => server.stop() };
}

describeEachDatabase('Federation (GRAPHQL_FEDERATION=true)', (kind) => {
  let app: TestApp;
  let blogUrl: string;
  let ws: string;
  let base: string;
  let tokens: Record<Exclude<CallerName, 'bobKey' | 'aliceKey' | 'adminKey' | 'anonymous'>, string>;
  const publishedIds: number[] = [];
  const commentIds: number[] = [];

  /**
   * Runs an anonymous query and returns its data and how many SQL statements it sent. The event
   * relay and the scheduler read in the background: three runs, the smallest count is the
   * query's own (each run's text differs by a comment, so the response cache does not answer).
   */
  async function measure(query: string, variables: Record<string, unknown>) {
    const counts: number[] = [];
    let result: Awaited<ReturnType<typeof graphql>> | undefined;
    for (let run = 0; run < 3; run++) {
      const before = await metricValue(app, 'db_queries_total');
      result = await graphql(app, `${query}\n# run ${run}`, variables);
      counts.push((await metricValue(app, 'db_queries_total')) - before);
    }
    return { data: expectData(result!), statements: Math.min(...counts) };
  }

  beforeAll(async () => {
    // Introspection off, as in production: a router reads `_service`, which is not introspection.
    app = await startTestApp(kind, { env: editorialEnv(kind, { GRAPHQL_FEDERATION: 'true', GRAPHQL_INTROSPECTION: 'false' }) });
    const urls = await listen(app);
    blogUrl = `${urls.http}/graphql`;
    ws = urls.ws;
    base = urls.http;
    const [admin, alice, bob] = await Promise.all([tokenFor(app, ADMIN), tokenFor(app, ALICE), tokenFor(app, BOB)]);
    tokens = { admin, alice, bob };
    for (let index = 0; index < 12; index++) {
      const post = await createPostIn(app, index % 2 ? alice : bob, 'published', { title: `Federated ${index}` });
      publishedIds.push(post.id);
      commentIds.push((await commentOn(app, post.id, index % 2 ? bob : alice, `comment ${index}`)).id);
    }
  }, 120_000);
  afterAll(() => app?.close());

  it('_service { sdl } declares @key(fields: "id") on User, Post, Comment and Tag, and composes with another subgraph', async () => {
    const { sdl } = expectData(await graphql(app, '{ _service { sdl } }'))._service;
    for (const type of ['User', 'Post', 'Comment', 'Tag']) {
      expect(sdl, type).toMatch(new RegExp(`type ${type} @key\\(fields: "id"\\)`));
    }
    expect(sdl).toContain('@link(url: "https://specs.apollo.dev/federation/v2');
    // The cost weights travel with the schema, for a router's demand control.
    expect(sdl).toContain('): PostConnection! @listSize(assumedSize: 20, slicingArguments: ["first"], requireOneSlicingArgument: false, sizedFields: ["edges", "nodes"])');
    // An entity's fields other than its key are nullable there (a reference may name a post the reader may not see).
    expect(sdl).toContain('tags: [Tag!] @listSize(assumedSize: 10)');
    const composed = composeServices([
      { name: 'blog', typeDefs: parse(sdl), url: blogUrl },
      { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: 'http://127.0.0.1:1/graphql' },
    ]);
    expect(composed.errors, JSON.stringify(composed.errors)).toBeUndefined();
    expect((composed.hints ?? []).map((hint) => `${hint.definition.code}: ${hint.message}`)).toEqual([]);
    expect(composed.supergraphSdl).toContain('join__type(graph: BLOG, key: "id")');
    expect(composed.supergraphSdl).toContain('@listSize(assumedSize: 20, slicingArguments: ["first"]');
    expect(composed.supergraphSdl).toMatch(/search: String @cost\(weight: 10\)/);
  });

  it('a query through Apollo Gateway spans both subgraphs: our titles and author names for the reviews\' post references', async () => {
    const draft = await createPostIn(app, tokens.alice, 'draft', { title: 'Never reviewed in public' });
    const reviews = await startReviews([1, 3, draft.id]);
    const { sdl } = expectData(await graphql(app, '{ _service { sdl } }'))._service;
    const { supergraphSdl, errors } = composeServices([
      { name: 'blog', typeDefs: parse(sdl), url: blogUrl },
      { name: 'reviews', typeDefs: parse(REVIEWS_SDL), url: reviews.url },
    ]);
    expect(errors).toBeUndefined();
    // The gateway forwards the caller's Authorization header to the subgraphs.
    const forwarding = new ApolloGateway({
      supergraphSdl: supergraphSdl!,
      buildService: ({ url }) =>
        new RemoteGraphQLDataSource<{ authorization?: string }>({
          url,
          willSendRequest: ({ request, context }) => {
            if (context.authorization) request.http!.headers.set('authorization', context.authorization);
          },
        }),
    });
    const gateway = new ApolloServer<{ authorization?: string }>({ gateway: forwarding, plugins: [ApolloServerPluginInlineTraceDisabled()] });
    const { url } = await startStandaloneServer(gateway, {
      listen: { port: 0, host: '127.0.0.1' },
      context: async ({ req }) => ({ authorization: req.headers.authorization }),
    });
    const throughGateway = async (token?: string) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
        body: JSON.stringify({ query: '{ reviews { stars post { id title author { name } } } }' }),
      });
      const body = (await response.json()) as { data?: { reviews: unknown[] }; errors?: unknown[] };
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data!.reviews;
    };
    try {
      const post1 = expectData(await graphql(app, '{ post(id: 1) { title author { name } } }')).post;
      const post3 = expectData(await graphql(app, '{ post(id: 3) { title author { name } } }')).post;
      expect(post1.title).toEqual(expect.any(String));
      expect(await throughGateway()).toEqual([
        { stars: 1, post: { id: 1, ...post1 } },
        { stars: 2, post: { id: 3, ...post3 } },
        // Anonymous: the draft is not the caller's to see. The reference (its id) is the reviews
        // subgraph's; nothing of ours about it comes back, and no error.
        { stars: 3, post: { id: draft.id, title: null, author: null } },
      ]);
      expect((await throughGateway(tokens.alice))[2]).toEqual({ stars: 3, post: { id: draft.id, title: 'Never reviewed in public', author: { name: 'Alice Author' } } });
    } finally {
      await gateway.stop();
      await reviews.stop();
    }
  });

  it('_entities: 10 representations of a type cost 1 SQL statement (Post, User, Comment, Tag)', async () => {
    const postIds = publishedIds.slice(0, 10);
    const posts = await measure(ENTITIES, { r: postIds.map((id) => ({ __typename: 'Post', id })) });
    expect(posts.data._entities.map((post: { id: number }) => post.id)).toEqual(postIds);
    expect(posts.data._entities[0].title).toBe('Federated 0');

    const users = await measure(ENTITIES, { r: [1, 2, 3, 1, 2, 3, 1, 2, 3, 1].map((id) => ({ __typename: 'User', id })) });
    const commentResult = await measure(ENTITIES, { r: commentIds.slice(0, 10).map((id) => ({ __typename: 'Comment', id })) });
    expect(users.data._entities.map((user: { name: string }) => user.name)).toHaveLength(10);
    expect(commentResult.data._entities.map((comment: { id: number }) => comment.id)).toEqual(commentIds.slice(0, 10));

    const tag = await request(app.server).post('/tags').set(bearer(tokens.admin)).send({ name: 'Federated' });
    expect(tag.status, tag.text).toBe(201);
    const tags = await measure(ENTITIES, { r: Array.from({ length: 10 }, () => ({ __typename: 'Tag', id: tag.body.id })) });
    expect(tags.data._entities).toEqual(Array.from({ length: 10 }, () => ({ __typename: 'Tag', id: tag.body.id, name: 'Federated' })));

    console.log(`[${kind}] _entities × 10: posts ${posts.statements}, users ${users.statements}, comments ${commentResult.statements}, tags ${tags.statements} statement(s)`);
    expect(posts.statements).toBe(1);
    expect(users.statements).toBe(1);
    expect(commentResult.statements).toBe(1);
    expect(tags.statements).toBe(1);
  });

  it('the read policy applies: a draft or trashed post, a hidden comment resolve to null for those who may not see them', async () => {
    const draft = await createPostIn(app, tokens.alice, 'draft');
    const trashed = await createPostIn(app, tokens.alice, 'trashed');
    const published = await createPostIn(app, tokens.alice, 'published');
    const hidden = await commentOn(app, published.id, tokens.bob, 'to be hidden');
    await request(app.server).patch(`/comments/${hidden.id}`).set(bearer(tokens.admin)).send({ status: 'hidden' }).expect(200);
    const r = [
      { __typename: 'Post', id: draft.id },
      { __typename: 'Post', id: trashed.id },
      { __typename: 'Comment', id: hidden.id },
      { __typename: 'Post', id: published.id },
    ];
    const entities = async (token?: string) => expectData(await graphql(app, ENTITIES, { r }, { token }))._entities;

    expect(await entities()).toEqual([null, null, null, { __typename: 'Post', id: published.id, title: published.title }]);
    const asAlice = await entities(tokens.alice);
    expect(asAlice.slice(0, 2)).toEqual([
      { __typename: 'Post', id: draft.id, title: draft.title },
      { __typename: 'Post', id: trashed.id, title: trashed.title },
    ]);
    expect((await entities(tokens.admin))[2]).toEqual({ __typename: 'Comment', id: hidden.id, body: 'to be hidden' });
  });

  // The federation door of issue 26's visibility matrix (test/visibility-matrix.e2e-spec.ts has
  // the other doors; its app runs without federation): ALICE's post in each state, with a comment
  // of hers, asked for as entities by each caller. A post the caller may not read, and its
  // comment, resolve to null, and nothing of them is in the answer.
  describe('the read policy on _entities: posts in each state × callers', () => {
    let callers: Record<CallerName, Caller>;
    const fixtures = new Map<PostStatus, { post: EditorialPost; comment: CommentBody; mark: string }>();
    const POST_AND_COMMENT = 'query($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Post { id title body } ... on Comment { id body post { id } } } }';

    beforeAll(async () => {
      callers = await signInCallers(app);
      for (const state of STATES) {
        const mark = marker(state);
        let comment: CommentBody | undefined;
        const addComment = async (post: EditorialPost) => {
          comment = await commentOn(app, post.id, callers.alice.token!, `A remark ${mark}`);
        };
        const post = await createPostIn(app, callers.alice.token!, state, { title: `Title ${mark}`, body: `Body ${mark}`, beforeTrash: addComment });
        if (!comment) await addComment(post);
        expect(post.status, `the ${state} post of the fixture`).toBe(state);
        fixtures.set(state, { post, comment: comment!, mark });
      }
    }, 60_000);

    for (const state of STATES) {
      for (const callerName of CALLER_NAMES) {
        const visible = mayRead(callerName, state);
        it(`${state} post × ${CALLER_LABELS[callerName]}: _entities ${visible ? 'resolves the post and its comment' : 'gives null for both'}`, async () => {
          const { post, comment, mark } = fixtures.get(state)!;
          const result = await graphql(app, POST_AND_COMMENT, { r: [{ __typename: 'Post', id: post.id }, { __typename: 'Comment', id: comment.id }] }, { token: callers[callerName].token });
          const door = `[${state} × ${callerName}] _entities`;
          const entities = expectData(result)._entities;
          if (!visible) {
            expect(entities, door).toEqual([null, null]);
            expectNoMarker(JSON.stringify(result.body), mark, door);
            return;
          }
          expect(entities, door).toEqual([
            { __typename: 'Post', id: post.id, title: post.title, body: post.body },
            { __typename: 'Comment', id: comment.id, body: comment.body, post: { id: post.id } },
          ]);
        });
      }
    }
  });

  it('an id that is not a positive 32-bit integer resolves to null, never a 500', async () => {
    const bad = ['abc', -1, 0, 1.5, 2 ** 31, 2 ** 53, null, true, { id: 1 }];
    const result = await graphql(app, ENTITIES, { r: bad.map((id) => ({ __typename: 'Post', id })).concat([{ __typename: 'User' } as never]) });
    expect(result.status).toBe(200);
    expect(expectData(result)._entities).toEqual(Array.from({ length: bad.length + 1 }, () => null));
    expect(expectData(await graphql(app, ENTITIES, { r: [{ __typename: 'Post', id: '2' }] }))._entities).toEqual([expect.objectContaining({ id: 2 })]);
  });

  it('subscriptions over graphql-ws and SSE, and REST, still work with federation on', async () => {
    const client = wsClient(ws);
    const sse = sseClient(base);
    try {
      await client.connected;
      const overWs = new LiveSubscription(client.client, 'subscription { postCreated { title author { name } } }');
      await waitForSubscribers(app, 'postCreated', 1);
      const overSse = new LiveSubscription(sse, 'subscription { postCreated { title } }');
      await waitForSubscribers(app, 'postCreated', 2);
      await request(app.server).post('/posts').set(bearer(tokens.alice)).send({ title: 'Live and federated', body: 'b' }).expect(201);
      expect(await overWs.received(1)).toEqual([{ title: 'Live and federated', author: { name: 'Alice Author' } }]);
      expect(await overSse.received(1)).toEqual([{ title: 'Live and federated' }]);
      overWs.dispose();
      overSse.dispose();
    } finally {
      sse.dispose();
      await client.dispose();
    }
  });
});

describeEachDatabase('Federation off (the default)', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('_service and _entities are not in the schema', async () => {
    expectError(await graphql(app, '{ _service { sdl } }'), 'GRAPHQL_VALIDATION_FAILED');
    // Two errors: the unknown type _Any and the unknown field _entities.
    const entities = await graphql(app, ENTITIES, { r: [{ __typename: 'Post', id: 1 }] });
    expect(entities.body.data).toBeUndefined();
    expect(entities.body.errors!.map((error) => [error.extensions.code, error.message])).toEqual([
      ['GRAPHQL_VALIDATION_FAILED', 'Unknown type "_Any".'],
      ['GRAPHQL_VALIDATION_FAILED', 'Cannot query field "_entities" on type "Query".'],
    ]);
    expect(expectData(await graphql(app, '{ post(id: 1) { id } }')).post).toEqual({ id: 1 });
  });
});
