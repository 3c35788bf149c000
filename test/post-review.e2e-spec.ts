import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createSseClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { PostScheduler } from '../src/posts/post-scheduler.js';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem, errorFields } from './support/problems.js';
import { listen, type ListeningApp, LiveSubscription, type OperationClient, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { type DemoUser, useApp } from './support/fixture.js';

type Reader = 'anonymous' | DemoUser;
const READERS: Reader[] = ['anonymous', 'bob', 'moderator', 'alice', 'editor', 'admin'];
/** Who sees alice's post in review, its reviews and its review events: herself and the reviewers. */
const seesAlicesReview = (reader: Reader) => reader === 'alice' || reader === 'editor' || reader === 'admin';

const REVIEW_KEYS = ['_links', 'createdAt', 'decision', 'id', 'note', 'postId', 'reviewerId'];
const future = (ms: number) => new Date(Date.now() + ms).toISOString();

interface EventItem {
  cursor: string;
  type: string;
  postId?: number;
  resource?: { title?: string; status?: string };
}

/**
 * Review before publishing (CONTRACT §16, POSTS_REVIEW=required): authors cannot publish or
 * schedule their own posts (403 on REST, FORBIDDEN on GraphQL) and submit them with `in_review`,
 * non-public like a draft; editors and admins approve (published, or scheduled for a publishAt
 * still to come) or request changes (back to draft) with POST /posts/{id}/reviews or reviewPost;
 * the decisions are listed for the author and the reviewers only, and POST_SUBMITTED and
 * POST_REVIEWED reach only them, on the feed, both subscription transports and never webhooks.
 */
describeEachDatabase('post review', (kind) => {
  const app = useApp(kind, {
    env: { POSTS_REVIEW: 'required', RESPONSE_CACHE: 'off', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' },
    signIn: ['admin', 'alice', 'bob', 'editor', 'moderator'],
    timeout: 60_000,
  });
  const http = () => request(app.server);
  const auth = (reader: Reader) => (reader === 'anonymous' ? {} : bearer(app.tokens[reader]));
  const ql = (query: string, reader: Reader, variables?: Record<string, unknown>) => graphql(app, query, variables, { token: reader === 'anonymous' ? undefined : app.tokens[reader] });
  let urls: ListeningApp;
  const clients: WsClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    urls = await listen(app);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    for (const close of closers.splice(0)) await close();
  });
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });

  const submit = async (fields: Record<string, unknown> = {}, reader: Reader = 'alice') =>
    (await http().post('/posts').set(auth(reader)).send({ title: 'For review', body: 'Please look', status: 'in_review', ...fields }).expect(201)).body as { id: number; status: string; publishAt: string | null; publishedAt: string | null };
  const decide = (id: number, reader: Reader, body: Record<string, unknown>) => http().post(`/posts/${id}/reviews`).set(auth(reader)).send(body);
  const countOfAlices = async (status: string) => {
    const data = expectData(await ql(`{ posts(status: ${status}, first: 1) { totalCount } }`, 'alice'));
    return data.posts.totalCount as number;
  };

  it('an author cannot publish or schedule their own post on REST: 403, and nothing is written', async () => {
    const drafts = await countOfAlices('DRAFT');
    const published = await countOfAlices('PUBLISHED');
    for (const fields of [{}, { status: 'published' }, { status: 'scheduled', publishAt: future(3_600_000) }]) {
      expectProblem(await http().post('/posts').set(auth('alice')).send({ title: 'Straight out', body: 'No review', ...fields }), 403, 'FORBIDDEN');
    }
    const draft = (await http().post('/posts').set(auth('alice')).send({ title: 'Mine', body: 'Draft', status: 'draft' }).expect(201)).body as { id: number };
    expectProblem(await http().patch(`/posts/${draft.id}`).set(auth('alice')).send({ status: 'published' }), 403, 'FORBIDDEN');
    expectProblem(await http().patch(`/posts/${draft.id}`).set(auth('alice')).send({ status: 'scheduled', publishAt: future(3_600_000) }), 403, 'FORBIDDEN');
    expect((await http().get(`/posts/${draft.id}`).set(auth('alice')).expect(200)).body.status).toBe('draft');
    expect(await countOfAlices('DRAFT')).toBe(drafts + 1);
    expect(await countOfAlices('PUBLISHED')).toBe(published);
    // Moderators write their own posts as authors do: under review too.
    expectProblem(await http().post('/posts').set(auth('moderator')).send({ title: 'Moderated', body: 'No review' }), 403, 'FORBIDDEN');
    expect((await http().post('/posts').set(auth('moderator')).send({ title: 'Moderated', body: 'Submitted', status: 'in_review' }).expect(201)).body.status).toBe('in_review');
    // Bob cannot see alice's draft: 404 before any question of publishing.
    expectProblem(await http().patch(`/posts/${draft.id}`).set(auth('bob')).send({ status: 'published' }), 404, 'NOT_FOUND');
  });

  it('an author cannot publish or schedule on GraphQL either (FORBIDDEN); editors and admins publish their own directly', async () => {
    expectError(await ql('mutation { createPost(input: { title: "GQL", body: "No review" }) { id } }', 'alice'), 'FORBIDDEN', ['createPost']);
    expectError(await ql('mutation { createPost(input: { title: "GQL", body: "No review", status: PUBLISHED }) { id } }', 'alice'), 'FORBIDDEN', ['createPost']);
    const draft = expectData(await ql('mutation { createPost(input: { title: "GQL draft", body: "Draft", status: DRAFT }) { id status } }', 'alice')).createPost;
    expect(draft.status).toBe('DRAFT');
    expectError(await ql(`mutation { updatePost(id: ${draft.id}, input: { status: PUBLISHED }) { id } }`, 'alice'), 'FORBIDDEN', ['updatePost']);
    expectError(await ql(`mutation($at: DateTime) { updatePost(id: ${draft.id}, input: { status: SCHEDULED, publishAt: $at }) { id } }`, 'alice', { at: future(3_600_000) }), 'FORBIDDEN', ['updatePost']);

    for (const reviewer of ['editor', 'admin'] as const) {
      const own = (await http().post('/posts').set(auth(reviewer)).send({ title: `By the ${reviewer}`, body: 'Direct' }).expect(201)).body as { status: string };
      expect(own.status).toBe('published');
      const later = expectData(await ql('mutation($at: DateTime) { createPost(input: { title: "Later", body: "B", status: SCHEDULED, publishAt: $at }) { status } }', reviewer, { at: future(3_600_000) }));
      expect(later.createPost.status).toBe('SCHEDULED');
    }
    // An editor publishes an author's post too (editors change any post).
    expect((await http().patch(`/posts/${draft.id}`).set(auth('editor')).send({ status: 'published' }).expect(200)).body.status).toBe('published');
  });

  it('in_review is non-public like a draft: item, lists, counts and GraphQL', async () => {
    const post = await submit({ title: 'Submitted, not public' });
    expect(post.status).toBe('in_review');
    expect(post.publishedAt).toBeNull();
    for (const reader of READERS) {
      const response = await http().get(`/posts/${post.id}`).set(auth(reader));
      expect(response.status, reader).toBe(seesAlicesReview(reader) ? 200 : 404);
      for (const accept of ['application/xml', 'text/html', 'application/hal+json']) {
        const other = await http().get(`/posts/${post.id}`).set(auth(reader)).set('Accept', accept);
        expect(other.status, `${reader} ${accept}`).toBe(seesAlicesReview(reader) ? 200 : 404);
        expect(other.text.includes('Submitted, not public'), `${reader} ${accept}`).toBe(seesAlicesReview(reader));
      }
      const data = expectData(await ql(`{ post(id: ${post.id}) { id status } }`, reader));
      expect(data.post, reader).toEqual(seesAlicesReview(reader) ? { id: post.id, status: 'IN_REVIEW' } : null);
      const listed = await http().get('/posts?limit=100').set(auth(reader)).expect(200);
      expect((listed.body as { id: number }[]).some((item) => item.id === post.id), reader).toBe(false);
      if (reader === 'anonymous') {
        expectProblem(await http().get('/posts?status=in_review'), 401);
        continue;
      }
      const inReview = await http().get('/posts?status=in_review&limit=100').set(auth(reader)).expect(200);
      expect((inReview.body as { id: number }[]).some((item) => item.id === post.id), reader).toBe(seesAlicesReview(reader));
      const gql = expectData(await ql('{ posts(status: IN_REVIEW, first: 100) { totalCount nodes { id } } }', reader));
      expect(gql.posts.nodes.some((node: { id: number }) => node.id === post.id), reader).toBe(seesAlicesReview(reader));
    }
    // A comment on it is 404 for those who cannot see it, as on a draft.
    expectProblem(await http().post(`/posts/${post.id}/comments`).set(auth('bob')).send({ body: 'Hi' }), 404);
    // Feeds list public posts only.
    expect((await http().get('/posts?status=in_review').set(auth('alice')).set('Accept', 'application/atom+xml')).status).toBe(400);
  });

  it('approve publishes a submitted post: 201 with the decision, and it is public', async () => {
    const post = await submit({ title: 'Approve me' });
    const response = await decide(post.id, 'editor', { decision: 'approve', note: 'Lovely' }).expect(201);
    const review = response.body as Record<string, unknown>;
    expect(Object.keys(review).sort()).toEqual(REVIEW_KEYS);
    const editorId = expectData(await ql('{ me { id } }', 'editor')).me.id as number;
    expect(review).toMatchObject({ postId: post.id, reviewerId: editorId, decision: 'approve', note: 'Lovely' });
    expect(response.headers.location).toBe(`/posts/${post.id}/reviews/${review.id as number}`);
    const read = (await http().get(`/posts/${post.id}`).expect(200)).body as { status: string; publishedAt: string | null };
    expect(read.status).toBe('published');
    expect(read.publishedAt).not.toBeNull();
    // A decision on a post no longer in review is 409.
    expectProblem(await decide(post.id, 'admin', { decision: 'approve' }), 409, 'CONFLICT');
    expectProblem(await decide(post.id, 'editor', { decision: 'request_changes' }), 409, 'CONFLICT');
  });

  it('approve schedules a post whose publishAt is still to come; the schedule publishes it then', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const post = await submit({ title: 'Approve for later', publishAt: at.toISOString() });
    expect(post.status).toBe('in_review');
    expect(post.publishAt).toBe(at.toISOString());
    await decide(post.id, 'admin', { decision: 'approve' }).expect(201);
    const scheduled = (await http().get(`/posts/${post.id}`).set(auth('alice')).expect(200)).body as { status: string; publishAt: string };
    expect(scheduled).toMatchObject({ status: 'scheduled', publishAt: at.toISOString() });
    expectProblem(await http().get(`/posts/${post.id}`), 404);
    await app.app.get(PostScheduler).run(new Date(at.getTime() + 1000));
    expect((await http().get(`/posts/${post.id}`).expect(200)).body).toMatchObject({ status: 'published', publishedAt: at.toISOString() });
    // A publishAt in the past is refused when submitting, as for a schedule.
    const refused = await http().post('/posts').set(auth('alice')).send({ title: 'T', body: 'B', status: 'in_review', publishAt: new Date(Date.now() - 60_000).toISOString() });
    expectProblem(refused, 400, 'BAD_USER_INPUT');
    expect(errorFields(refused)).toEqual(['publishAt']);
  });

  it('request_changes returns it to draft with the note listed; the author submits again by PATCH', async () => {
    const post = await submit({ title: 'Needs work', publishAt: future(7_200_000) });
    await decide(post.id, 'editor', { decision: 'request_changes', note: 'Shorter title, please' }).expect(201);
    const back = (await http().get(`/posts/${post.id}`).set(auth('alice')).expect(200)).body as { status: string; publishAt: string | null };
    expect(back).toMatchObject({ status: 'draft', publishAt: null });
    const listed = (await http().get(`/posts/${post.id}/reviews`).set(auth('alice')).expect(200)).body as Record<string, unknown>[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ decision: 'request_changes', note: 'Shorter title, please', postId: post.id });
    // An author's PATCH submits it again; the second decision is listed first.
    expect((await http().patch(`/posts/${post.id}`).set(auth('alice')).send({ title: 'Short', status: 'in_review' }).expect(200)).body.status).toBe('in_review');
    const gql = expectData(await ql(`mutation { reviewPost(id: ${post.id}, decision: APPROVE, note: "Better") { id postId decision note reviewerId createdAt } }`, 'admin'));
    expect(gql.reviewPost).toMatchObject({ postId: post.id, decision: 'APPROVE', note: 'Better' });
    const both = (await http().get(`/posts/${post.id}/reviews?limit=1`).set(auth('editor')).expect(200));
    expect((both.body as { decision: string }[]).map((item) => item.decision)).toEqual(['approve']);
    expect(both.headers.link).toMatch(/rel="next"/);
    const next = /^<([^>]+)>; rel="next"$/.exec(both.headers.link as string)?.[1];
    expect(((await http().get(next!).set(auth('editor')).expect(200)).body as { decision: string }[]).map((item) => item.decision)).toEqual(['request_changes']);
    expect((await http().get(`/posts/${post.id}`).expect(200)).body.status).toBe('published');
    // One decision by its link, in XML too.
    const one = (await http().get(`/posts/${post.id}/reviews/${gql.reviewPost.id as number}`).set(auth('alice')).set('Accept', 'application/xml').expect(200)).text;
    expect(one).toContain('Better');
  });

  it('reviews are listed for the author, editors and admins only: 404 for everyone else, published or not', async () => {
    const pending = await submit({ title: 'Listed for few' });
    const decided = await submit({ title: 'Decided, public' });
    await decide(decided.id, 'editor', { decision: 'approve', note: 'Secret note' }).expect(201);
    for (const reader of READERS) {
      for (const id of [pending.id, decided.id]) {
        const response = await http().get(`/posts/${id}/reviews`).set(auth(reader));
        expect(response.status, `${reader} ${id}`).toBe(seesAlicesReview(reader) ? 200 : 404);
        expect(response.text.includes('Secret note'), reader).toBe(seesAlicesReview(reader) && id === decided.id);
      }
    }
    expectProblem(await http().get('/posts/999999/reviews').set(auth('admin')), 404);
  });

  it('who may decide: editors and admins; the author 403, who cannot see it 404, anonymous 401; bad input 400', async () => {
    const post = await submit({ title: 'Who decides' });
    expectProblem(await decide(post.id, 'alice', { decision: 'approve' }), 403, 'FORBIDDEN');
    expectProblem(await decide(post.id, 'bob', { decision: 'approve' }), 404, 'NOT_FOUND');
    expectProblem(await decide(post.id, 'moderator', { decision: 'approve' }), 404, 'NOT_FOUND');
    expectProblem(await decide(post.id, 'anonymous', { decision: 'approve' }), 401);
    expectError(await ql(`mutation { reviewPost(id: ${post.id}, decision: APPROVE) { id } }`, 'alice'), 'FORBIDDEN', ['reviewPost']);
    expectError(await ql(`mutation { reviewPost(id: ${post.id}, decision: APPROVE) { id } }`, 'bob'), 'NOT_FOUND', ['reviewPost']);
    // A public post bob can see: 403, not 404.
    const open = (await http().post('/posts').set(auth('editor')).send({ title: 'Open', body: 'B' }).expect(201)).body as { id: number };
    expectProblem(await decide(open.id, 'bob', { decision: 'approve' }), 403, 'FORBIDDEN');
    expectError(await ql(`mutation { reviewPost(id: ${open.id}, decision: APPROVE) { id } }`, 'editor'), 'CONFLICT', ['reviewPost']);
    for (const body of [{}, { decision: 'reject' }, { decision: 'approve', note: 'x'.repeat(2001) }, { decision: 'approve', note: 5 }]) {
      const refused = await decide(post.id, 'editor', body);
      expectProblem(refused, 400, 'BAD_USER_INPUT');
    }
    expect((await http().get(`/posts/${post.id}`).set(auth('alice')).expect(200)).body.status).toBe('in_review');
    expect((await http().get(`/posts/${post.id}/reviews`).set(auth('alice')).expect(200)).body).toEqual([]);
  });

  /** Every event after `after` a reader gets from GET /events (`query` added), following Link rel="next". */
  const feed = async (reader: Reader, after: string | undefined, query = ''): Promise<EventItem[]> => {
    const events: EventItem[] = [];
    let url: string | null = `/events?limit=100${query}${after ? `&after=${after}` : ''}`;
    while (url) {
      const response: request.Response = await http().get(url).set(auth(reader)).expect(200);
      events.push(...(response.body as EventItem[]));
      url = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
    }
    return events;
  };
  const head = async () => (await feed('admin', undefined)).at(-1)?.cursor;

  it('POST_SUBMITTED and POST_REVIEWED reach the author and the reviewers only: GET /events', async () => {
    const start = await head();
    const post = await submit({ title: 'Evented' });
    await decide(post.id, 'editor', { decision: 'request_changes', note: 'No' }).expect(201);
    await http().patch(`/posts/${post.id}`).set(auth('alice')).send({ status: 'in_review' }).expect(200);
    await decide(post.id, 'admin', { decision: 'approve' }).expect(201);
    for (const reader of READERS) {
      const types = (await feed(reader, start)).filter((item) => item.postId === post.id).map((item) => item.type);
      const expected = seesAlicesReview(reader)
        ? ['POST_CREATED', 'POST_SUBMITTED', 'POST_UPDATED', 'POST_REVIEWED', 'POST_UPDATED', 'POST_SUBMITTED', 'POST_PUBLISHED', 'POST_REVIEWED']
        : ['POST_PUBLISHED'];
      expect(types, reader).toEqual(expected);
      const filtered = await feed(reader, start, '&types=POST_SUBMITTED,POST_REVIEWED');
      expect(filtered.filter((item) => item.postId === post.id).length, reader).toBe(seesAlicesReview(reader) ? 4 : 0);
    }
    const reviewed = (await feed('alice', start)).filter((item) => item.postId === post.id && item.type === 'POST_REVIEWED');
    expect(reviewed.map((item) => item.resource?.status)).toEqual(['draft', 'published']);
  });

  it('the events subscription over WebSocket and SSE: review events only for the author and the reviewers', async () => {
    const EVENTS = 'subscription { events(types: [POST_SUBMITTED, POST_REVIEWED, POST_CREATED]) { type postId post { title } } }';
    const lives = new Map<Reader, LiveSubscription[]>();
    for (const reader of READERS) {
      const ws = wsClient(urls.ws, { token: reader === 'anonymous' ? undefined : app.tokens[reader] });
      clients.push(ws);
      await ws.connected;
      const sse = createSseClient({ url: `${urls.http}/graphql/stream`, singleConnection: false, retryAttempts: 0, headers: reader === 'anonymous' ? {} : { authorization: `Bearer ${app.tokens[reader]}` } });
      closers.push(() => sse.dispose());
      const own = [ws.client, sse as OperationClient].map((client) => new LiveSubscription(client, EVENTS));
      subscriptions.push(...own);
      lives.set(reader, own);
    }
    const all = [...lives.values()].flat();
    const heard = (title: string) => all.every((subscription) => subscription.results.some((result) => JSON.stringify(result).includes(title)));
    // Live once a public marker reaches every one of them (markers until one does).
    let round = 0;
    await until('every subscription to hear a marker', async () => {
      const title = `Warm-up ${(round += 1)}`;
      await http().post('/posts').set(auth('editor')).send({ title, body: 'B' }).expect(201);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return heard(title);
    }, 20_000);
    const post = await submit({ title: 'Live review' });
    await decide(post.id, 'editor', { decision: 'approve' }).expect(201);
    await http().post('/posts').set(auth('editor')).send({ title: 'Live marker', body: 'B' }).expect(201);
    await until('every subscription to hear the last marker', () => heard('Live marker'));
    for (const [reader, own] of lives) {
      for (const subscription of own) {
        const types = subscription.values.filter((item: { postId: number }) => item.postId === post.id).map((item: { type: string }) => item.type);
        expect(types, reader).toEqual(seesAlicesReview(reader) ? ['POST_CREATED', 'POST_SUBMITTED', 'POST_REVIEWED'] : []);
      }
    }
  }, 30_000);

  it('webhooks never send review events', async () => {
    const bodies: string[] = [];
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const webhook = (await http().post('/webhooks').set(auth('admin')).send({ url, types: ['POST_SUBMITTED', 'POST_REVIEWED', 'POST_PUBLISHED'] }).expect(201)).body as { id: number };
    closers.unshift(() => http().delete(`/webhooks/${webhook.id}`).set(auth('admin')));
    const post = await submit({ title: 'Hooked review' });
    await decide(post.id, 'editor', { decision: 'approve', note: 'Hook note' }).expect(201);
    await until('the publication delivered', () => bodies.some((body) => body.includes('POST_PUBLISHED')));
    await until('every queued delivery sent', async () => {
      const attempts = (await http().get(`/webhooks/${webhook.id}/deliveries`).set(auth('admin')).expect(200)).body as unknown[];
      return attempts.length === bodies.length;
    });
    const sent = bodies.map((body) => (JSON.parse(body) as { type: string }).type);
    expect(sent).toEqual(['POST_PUBLISHED']);
  });
});

/** With POSTS_REVIEW=off (the default) authors publish directly, and review still works for those who use it. */
describeEachDatabase('post review, not required', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, signIn: ['alice', 'bob', 'editor'], timeout: 60_000 });
  const http = () => request(app.server);

  it('authors publish and schedule directly; in_review, approval and its list work as under required', async () => {
    expect((await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Direct', body: 'B' }).expect(201)).body.status).toBe('published');
    const later = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Later', body: 'B', status: 'scheduled', publishAt: future(3_600_000) }).expect(201);
    expect(later.body.status).toBe('scheduled');
    const submitted = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Asked for review', body: 'B', status: 'in_review' }).expect(201)).body as { id: number };
    expectProblem(await http().get(`/posts/${submitted.id}`).set(bearer(app.tokens.bob)), 404);
    expectProblem(await http().post(`/posts/${submitted.id}/reviews`).set(bearer(app.tokens.alice)).send({ decision: 'approve' }), 403, 'FORBIDDEN');
    await http().post(`/posts/${submitted.id}/reviews`).set(bearer(app.tokens.editor)).send({ decision: 'approve' }).expect(201);
    expect((await http().get(`/posts/${submitted.id}`).expect(200)).body.status).toBe('published');
    expect((await http().get(`/posts/${submitted.id}/reviews`).set(bearer(app.tokens.alice)).expect(200)).body).toHaveLength(1);
    expectProblem(await http().get(`/posts/${submitted.id}/reviews`).set(bearer(app.tokens.bob)), 404);
    // An author may also take a post out of review and publish it themselves.
    const other = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Changed my mind', body: 'B', status: 'in_review' }).expect(201)).body as { id: number };
    expect((await http().patch(`/posts/${other.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200)).body.status).toBe('published');
  });
});
