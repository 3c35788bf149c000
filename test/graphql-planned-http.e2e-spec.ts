import request from 'supertest';
import { afterAll, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import { GraphQLContextFactory } from '../src/api/graphql/graphql-context.factory.js';
import { OperationGate } from '../src/api/graphql/gate/operation-gate.js';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { bearer } from './support/auth.js';
import { createPostWith, signInCallers } from './support/editorial.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 43: a planned document over POST /graphql is answered before Apollo
 * (plans/planned-answers.ts). Whatever path a request takes — answered there, left to Apollo after
 * the gate's verdict, or planned inside Apollo (GET) — its status, headers and bytes must be those
 * of the same request without plans, its cost budget spent once, and the response cache must keep
 * and serve its answer alike.
 */

const POST_PAGE = 'query PostPage($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } tags { slug } } }';
/** Not planned (a fragment): the planned path takes the gate's verdict and leaves it to Apollo. */
const DECLINED = 'query($id: Int!) { post(id: $id) { ...P } } fragment P on Post { title author { name } }';
const MUTATION = 'mutation { signOutEverywhere }';

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The RateLimit header as sent. */
  rateLimit?: string;
}

/** The headers that differ from one request to the next whatever the path: masked. */
function masked(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name === 'date' || name === 'x-request-id' || value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    result[name] = name === 'ratelimit' ? text.replace(/r=\d+/g, 'r=N').replace(/t=\d+/g, 't=N') : text;
  }
  return result;
}

/** The cost budget's remaining points in a RateLimit header. */
function costLeft(answer: Answer): number {
  const match = /"cost";r=(\d+)/.exec(answer.rateLimit ?? '');
  expect(match, answer.rateLimit).not.toBeNull();
  return Number(match![1]);
}

describeEachDatabase('GraphQL plans over HTTP: answered before Apollo, as Apollo answers', (kind) => {
  let app: TestApp;
  let planner: QueryPlanner;
  let postId: number;
  let draftId: number;
  const tokens = new Map<string, string | undefined>();

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'off', RATE_LIMIT_COST_MAX: '1000000', RATE_LIMIT_MAX: '100000' } });
    planner = app.app.get(QueryPlanner);
    const callers = await signInCallers(app);
    for (const caller of Object.values(callers)) tokens.set(caller.name, caller.token);
    const alice = tokens.get('alice')!;
    postId = (await createPostWith(app, alice, { title: 'Planned over HTTP', body: 'Its body.', tags: ['news'] })).id;
    draftId = (await createPostWith(app, alice, { title: 'A draft', body: 'Not yet.', status: 'draft' })).id;
    const comment = await request(app.server).post(`/posts/${postId}/comments`).set(bearer(alice)).send({ body: 'A comment' });
    expect(comment.status, comment.text).toBe(201);
  }, 60_000);
  afterAll(() => app?.close());

  const post = async (body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Answer> => {
    const call = request(app.server).post('/graphql').set('content-type', 'application/json').set(headers);
    if (token) void call.set(bearer(token));
    const response = await call.send(typeof body === 'string' ? body : JSON.stringify(body));
    return { status: response.status, headers: masked(response.headers), text: response.text };
  };
  const postCounted = async (body: unknown): Promise<Answer> => {
    const response = await request(app.server).post('/graphql').set('content-type', 'application/json').send(JSON.stringify(body));
    return { status: response.status, headers: {}, text: response.text, rateLimit: response.headers.ratelimit as string };
  };
  const withoutPlans = async <T>(work: () => Promise<T>): Promise<T> => {
    planner.enabled = false;
    try {
      return await work();
    } finally {
      planner.enabled = true;
    }
  };
  /** Whether Apollo ran for what `work` sent (its context factory is called for every request it runs). */
  const apolloRuns = async (work: () => Promise<unknown>): Promise<number> => {
    const spy = vi.spyOn(app.app.get(GraphQLContextFactory), 'forHttp');
    try {
      await work();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  };

  const CASES: { name: string; body: (id: number) => unknown; headers?: Record<string, string>; planned: boolean }[] = [
    { name: 'the post page', body: (id) => ({ query: POST_PAGE, variables: { id } }), planned: true },
    { name: 'the post page with an operationName', body: (id) => ({ query: POST_PAGE, variables: { id }, operationName: 'PostPage' }), planned: true },
    { name: 'Accept: application/graphql-response+json', body: (id) => ({ query: POST_PAGE, variables: { id } }), headers: { accept: 'application/graphql-response+json' }, planned: true },
    { name: 'Accept: application/json, */*', body: (id) => ({ query: POST_PAGE, variables: { id } }), headers: { accept: 'application/json, text/plain, */*' }, planned: true },
    { name: 'a declined document', body: (id) => ({ query: DECLINED, variables: { id } }), planned: false },
    { name: 'a mutation', body: () => ({ query: MUTATION }), planned: false },
    { name: 'an unknown operationName', body: (id) => ({ query: POST_PAGE, variables: { id }, operationName: 'Other' }), planned: false },
    { name: 'variables of the wrong type', body: () => ({ query: POST_PAGE, variables: { id: 'seven' } }), planned: false },
    { name: 'variables that are not an object', body: () => ({ query: POST_PAGE, variables: 'id=7' }), planned: false },
    { name: 'a query that does not parse', body: () => ({ query: '{ post(id: 1) { title ' }), planned: false },
    { name: 'extensions', body: (id) => ({ query: POST_PAGE, variables: { id }, extensions: {} }), planned: false },
    { name: 'a batch', body: (id) => [{ query: POST_PAGE, variables: { id } }], planned: false },
    { name: 'Accept: text/html', body: (id) => ({ query: POST_PAGE, variables: { id } }), headers: { accept: 'text/html' }, planned: false },
  ];

  for (const testCase of CASES) {
    it(`${testCase.name}: the same status, headers and bytes with plans and without, for each reader`, async () => {
      for (const reader of ['anonymous', 'alice', 'bob', 'admin', 'aliceKey']) {
        for (const id of [postId, draftId]) {
          const token = tokens.get(reader);
          // The mutation signs its caller out: it is asked anonymously only.
          if (testCase.body(id) && JSON.stringify(testCase.body(id)).includes('signOutEverywhere') && token) continue;
          const unplanned = await withoutPlans(() => post(testCase.body(id), token, testCase.headers));
          let planned: Answer | undefined;
          const runs = await apolloRuns(async () => {
            planned = await post(testCase.body(id), token, testCase.headers);
          });
          expect(planned, `${reader}, post ${id}`).toEqual(unplanned);
          // A planned document never reaches Apollo; any other runs there once.
          expect(runs, `${reader}, post ${id}: Apollo ran`).toBe(testCase.planned ? 0 : 1);
        }
      }
    });
  }

  it('a credential that no longer holds is answered by Apollo, as without plans', async () => {
    const bad = { authorization: 'Bearer not-a-token' };
    const unplanned = await withoutPlans(() => post({ query: POST_PAGE, variables: { id: postId } }, undefined, bad));
    expect(unplanned.status).toBe(401);
    // Looked at once: a credential check that waits on the database (an outage) is not waited for twice.
    const authenticate = vi.spyOn(app.app.get(OperationGate), 'authenticate');
    onTestFinished(() => {
      authenticate.mockRestore();
    });
    expect(await post({ query: POST_PAGE, variables: { id: postId } }, undefined, bad)).toEqual(unplanned);
    expect(authenticate).toHaveBeenCalledTimes(1);
  });

  it('the address’s cost budget is spent once per request, answered before Apollo or left to it', async () => {
    for (const query of [POST_PAGE, DECLINED]) {
      const body = { query, variables: { id: postId } };
      const spent = async () => {
        const first = await postCounted(body);
        const second = await postCounted(body);
        return costLeft(first) - costLeft(second);
      };
      const without = await withoutPlans(spent);
      expect(without).toBeGreaterThan(0);
      expect(await spent(), query).toBe(without);
    }
  });

  it('the gate decides once per request: admitted before Apollo and left to it, the verdict is not taken again', async () => {
    const gate = app.app.get(OperationGate);
    const spy = vi.spyOn(gate, 'admit');
    onTestFinished(() => {
      spy.mockRestore();
    });
    await post({ query: DECLINED, variables: { id: postId } });
    await post({ query: POST_PAGE, variables: { id: postId } });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('GET /graphql: planned inside Apollo, the same answer as without plans', async () => {
    const get = async () => {
      const response = await request(app.server).get('/graphql').query({ query: POST_PAGE, variables: JSON.stringify({ id: postId }) });
      return { status: response.status, headers: masked(response.headers), text: response.text };
    };
    const unplanned = await withoutPlans(get);
    expect(unplanned.status).toBe(200);
    const run = vi.spyOn(planner, 'run');
    onTestFinished(() => {
      run.mockRestore();
    });
    expect(await get()).toEqual(unplanned);
    expect(await run.mock.results[0]?.value).toBeDefined();
  });
});

describeEachDatabase('GraphQL plans over HTTP: the response cache keeps a planned answer as Apollo’s', (kind) => {
  let app: TestApp;
  let planner: QueryPlanner;
  let ids: number[];

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { RESPONSE_CACHE: 'memory' } });
    planner = app.app.get(QueryPlanner);
    const { alice } = await signInCallers(app);
    ids = [];
    for (const title of ['First', 'Second']) ids.push((await createPostWith(app, alice.token!, { title, body: `The ${title} post.` })).id);
  }, 60_000);
  afterAll(() => app?.close());

  const ask = async (id: number) => {
    const response = await request(app.server).post('/graphql').set('content-type', 'application/json').send({ query: POST_PAGE, variables: { id } });
    return { status: response.status, cache: response.headers['cache-status'], type: response.headers['content-type'], text: response.text };
  };

  it('a miss is kept and then served, with the bytes and headers of an unplanned miss', async () => {
    planner.enabled = false;
    const unplanned = await ask(ids[0]);
    planner.enabled = true;
    const planned = await ask(ids[1]);
    expect(unplanned.cache).toBe('blog; fwd=miss');
    expect(planned.cache).toBe(unplanned.cache);
    expect(planned.type).toBe(unplanned.type);
    expect(JSON.parse(planned.text).data.post.title).toBe('Second');
    const again = await ask(ids[1]);
    expect(again.cache).toBe('blog; hit');
    expect(again.text).toBe(planned.text);
  });

  it('an edit of the post drops the planned answer (its read tags are the resolvers’)', async () => {
    const before = await ask(ids[1]);
    expect(before.cache).toMatch(/hit|miss/);
    const { alice } = await signInCallers(app);
    const edit = await request(app.server).patch(`/posts/${ids[1]}`).set(bearer(alice.token!)).send({ title: 'Second, edited' });
    expect(edit.status, edit.text).toBe(200);
    const after = await ask(ids[1]);
    expect(after.cache).toBe('blog; fwd=miss');
    expect(JSON.parse(after.text).data.post.title).toBe('Second, edited');
  });
});
