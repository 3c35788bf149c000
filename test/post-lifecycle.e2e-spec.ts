import { GraphQLSchemaHost } from '@nestjs/graphql';
import {
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isObjectType,
} from 'graphql';
import type { Client as SseClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_ID,
  ALICE_ID,
  as,
  BOB_ID,
  type Caller,
  type CallerName,
  commentOn,
  createPostIn,
  createPostWith,
  type EditorialPost,
  editorialEnv,
  eventsSince,
  expectEditorialFields,
  expectNoMarker,
  type FeedEvent,
  fromNow,
  lastCursor,
  marker,
  patchPost,
  readPost,
  type Revision,
  signInCallers,
  sseClient,
  valuesOf,
  warmUp,
} from './support/editorial.js';
import { expectData, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { createUser, nextLink, parseXml, xmlFields } from './support/resources.js';
import { type ListeningApp, listen, LiveSubscription, type OperationClient, sleep, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { Receiver } from './support/webhook-receiver.js';

/**
 * Issue 23 (CONTRACT v3 §7), the life of one post: its states and their validation, the trash,
 * numbered revisions and their restoring, the events and subscriptions that publishing and
 * unpublishing send, and the GraphQL side of all of it. Who sees what through which door is the
 * visibility matrix's business (visibility-matrix.e2e-spec.ts); scheduling and privacy have specs
 * of their own.
 */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describeEachDatabase('the editorial life of a post', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let callers: Record<CallerName, Caller>;
  const clients: WsClient[] = [];
  const sseClients: SseClient[] = [];
  const subscriptions: LiveSubscription[] = [];
  const receivers: Receiver[] = [];
  const http = () => request(app.server);
  const alice = () => callers.alice.token!;
  const bob = () => callers.bob.token!;
  const admin = () => callers.admin.token!;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    app = await startTestApp(kind, { env: editorialEnv(kind) });
    urls = await listen(app);
    callers = await signInCallers(app);
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    for (const client of sseClients.splice(0)) client.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
  });

  /** Whether a list answer (JSON array) holds the post. */
  const lists = async (path: string, id: number, token?: string) => {
    const response = await as(http().get(path), token);
    expect(response.status, `GET ${path}: ${response.text}`).toBe(200);
    return (response.body as { id: number }[]).some((post) => post.id === id);
  };

  const revisionsOf = async (id: number, token = alice(), query = '') => {
    const response = await http().get(`/posts/${id}/revisions${query}`).set(auth(token));
    expect(response.status, response.text).toBe(200);
    return response.body as Revision[];
  };

  // -------------------------------------------------------------------------------------------
  describe('states', () => {
    it('POST /posts without status publishes at once, as in v1: status "published", publishedAt set, in JSON, HAL, XML and HTML', async () => {
      const response = await http().post('/posts').set(auth(alice())).send({ title: 'Published at once', body: 'As in v1' }).expect(201);
      const post = response.body as EditorialPost;
      expect(response.headers.location).toBe(`/posts/${post.id}`);
      expectEditorialFields(post, 'published', 'the 201 answer');
      expect(post.publishAt).toBeNull();
      expect(Date.parse(post.publishedAt!)).toBeGreaterThanOrEqual(Date.parse(post.createdAt) - 1000);

      const anonymous = await http().get(`/posts/${post.id}`).expect(200);
      expect(anonymous.body).toMatchObject({ status: 'published', publishedAt: post.publishedAt, publishAt: null, trashedAt: null });
      const hal = await http().get(`/posts/${post.id}`).set('accept', 'application/hal+json').expect(200);
      expect(JSON.parse(hal.text)).toMatchObject({ status: 'published', publishedAt: post.publishedAt });
      const xml = xmlFields(parseXml((await http().get(`/posts/${post.id}`).set('accept', 'application/xml').expect(200)).text)).fields;
      expect(xml).toMatchObject({ status: 'published', publishedAt: post.publishedAt, publishAt: '', trashedAt: '' });
      const html = (await http().get(`/posts/${post.id}`).set('accept', 'text/html').expect(200)).text;
      expect(html.toLowerCase()).toContain('published');

      const explicit = await createPostWith(app, alice(), { title: 'Published, said so', body: 'x', status: 'published' });
      expectEditorialFields(explicit, 'published', 'status "published" on create');
    });

    it('status "draft" saves a draft (publishedAt null) that ALICE and admins read, and no one else', async () => {
      const draft = await createPostWith(app, alice(), { title: 'A draft', body: 'Not yet', status: 'draft' });
      expectEditorialFields(draft, 'draft', 'the 201 answer');
      expect(draft.publishAt).toBeNull();
      expect((await readPost(app, draft.id, alice())).status).toBe('draft');
      expect((await readPost(app, draft.id, admin())).status).toBe('draft');
      expectProblem(await http().get(`/posts/${draft.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${draft.id}`).set(auth(bob())), 404, 'NOT_FOUND');
    });

    it('status "scheduled" with a future publishAt: scheduled, publishAt as sent, publishedAt null', async () => {
      const publishAt = fromNow(3_600_000);
      const post = await createPostWith(app, alice(), { title: 'Later', body: 'In an hour', status: 'scheduled', publishAt });
      expectEditorialFields(post, 'scheduled', 'the 201 answer');
      expect(post.publishAt).toBe(publishAt);
      expect(await readPost(app, post.id, alice())).toMatchObject({ status: 'scheduled', publishAt, publishedAt: null });
      const xml = xmlFields(parseXml((await http().get(`/posts/${post.id}`).set(auth(alice())).set('accept', 'application/xml').expect(200)).text)).fields;
      expect(xml).toMatchObject({ status: 'scheduled', publishAt });
    });

    it('400 BAD_USER_INPUT, and nothing written: scheduled without publishAt or with a past one, status "trashed" or unknown on create, a publishAt that is no date', async () => {
      const mark = marker('invalid');
      const bad: Record<string, unknown>[] = [
        { status: 'scheduled' },
        { status: 'scheduled', publishAt: null },
        { status: 'scheduled', publishAt: new Date(Date.now() - 60_000).toISOString() },
        { status: 'trashed' },
        { status: 'archived' },
        { status: 'PUBLISHED' },
        { status: 7 },
        { status: 'scheduled', publishAt: 'tomorrow' },
        { status: 'scheduled', publishAt: '2099-13-45T99:00:00Z' },
      ];
      for (const fields of bad) {
        const response = await http().post('/posts').set(auth(alice())).send({ title: `Refused ${mark}`, body: 'x', ...fields });
        const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
        const named = (problem.errors ?? []).map((error) => error.field);
        expect(named.length, `${JSON.stringify(fields)}: the fields at fault`).toBeGreaterThan(0);
        for (const field of named) expect(['status', 'publishAt'], JSON.stringify(fields)).toContain(field);
      }
      for (const status of ['draft', 'scheduled', 'trashed']) expectNoMarker((await http().get(`/posts?status=${status}&limit=100`).set(auth(admin())).expect(200)).text, mark, `?status=${status}`);
      expectNoMarker((await http().get('/posts?limit=100').expect(200)).text, mark, 'GET /posts');

      for (const input of ['{ title: "x", body: "x", status: SCHEDULED }', `{ title: "x", body: "x", status: SCHEDULED, publishAt: "${new Date(Date.now() - 60_000).toISOString()}" }`, '{ title: "x", body: "x", status: TRASHED }']) {
        const { body } = await graphql(app, `mutation { createPost(input: ${input}) { id } }`, undefined, { token: alice() });
        expect((body.errors ?? []).map((error) => error.extensions.code), input).toEqual(['BAD_USER_INPUT']);
      }
    });

    it('PATCH: 400 for scheduling without a future publishAt and for an unknown status; the post stays as it was', async () => {
      const draft = await createPostWith(app, alice(), { title: 'Stays a draft', body: 'x', status: 'draft' });
      for (const fields of [{ status: 'scheduled' }, { status: 'scheduled', publishAt: new Date(Date.now() - 60_000).toISOString() }, { status: 'archived' }, { publishAt: 'soon' }]) {
        expectProblem(await http().patch(`/posts/${draft.id}`).set(auth(alice())).send(fields), 400, 'BAD_USER_INPUT');
      }
      expect(await readPost(app, draft.id, alice())).toMatchObject({ status: 'draft', publishAt: null, publishedAt: null });
    });

    it('PATCH moves a post between draft, scheduled and published; publishing sets publishedAt the first time only', async () => {
      const draft = await createPostWith(app, alice(), { title: 'Moving', body: 'x', status: 'draft' });
      const publishAt = fromNow(3_600_000);
      const scheduled = await patchPost(app, draft.id, alice(), { status: 'scheduled', publishAt });
      expect(scheduled).toMatchObject({ status: 'scheduled', publishAt, publishedAt: null });

      const published = await patchPost(app, draft.id, alice(), { status: 'published' });
      expect(published.status).toBe('published');
      expect(published.publishedAt).toMatch(ISO);
      // Published now, by hand: not at the time it had been scheduled for.
      expect(Date.parse(published.publishedAt!)).toBeLessThan(Date.parse(publishAt));
      expect(await lists('/posts?limit=100', draft.id)).toBe(true);

      expect((await patchPost(app, draft.id, alice(), { status: 'draft' })).status).toBe('draft');
      expect(await lists('/posts?limit=100', draft.id)).toBe(false);
      const again = await patchPost(app, draft.id, alice(), { status: 'published' });
      expect(again.publishedAt, 'publishedAt is set the first time only').toBe(published.publishedAt);

      const rescheduled = await patchPost(app, draft.id, alice(), { status: 'scheduled', publishAt });
      expect(rescheduled).toMatchObject({ status: 'scheduled', publishAt });
      expectProblem(await http().get(`/posts/${draft.id}`), 404, 'NOT_FOUND');
    });

    it('GET /posts lists public posts by newest publishedAt (keyset-paged): a draft published later comes before a post created after it', async () => {
      const older = await createPostWith(app, alice(), { title: 'Written first, published last', body: 'x', status: 'draft' });
      const newer = await createPostWith(app, bob(), { title: 'Written second, published at once', body: 'x' });
      await sleep(5);
      await patchPost(app, older.id, alice(), { status: 'published' });
      const first = await http().get('/posts?limit=1').expect(200);
      expect(first.body.map((post: { id: number }) => post.id)).toEqual([older.id]);
      const next = nextLink(first);
      expect(next).toMatch(/^\/posts\?limit=1&cursor=/);
      expect((await http().get(next!).expect(200)).body.map((post: { id: number }) => post.id)).toEqual([newer.id]);
      const all = (await http().get('/posts?limit=100').expect(200)).body as EditorialPost[];
      const times = all.map((post) => Date.parse(post.publishedAt!));
      expect(times, 'newest publishedAt first').toEqual([...times].sort((a, b) => b - a));
      for (const post of all) expect(post, `post ${post.id}`).toMatchObject({ status: 'published', publishedAt: expect.stringMatching(ISO) });
    });

    it('GET /posts?status: 400 for a bad value, 401 for anonymous callers; an author lists her own, an admin everyone’s', async () => {
      for (const status of ['archived', 'DRAFT', '']) expectProblem(await http().get(`/posts?status=${status}`).set(auth(alice())), 400, 'BAD_USER_INPUT');
      for (const status of ['draft', 'scheduled', 'trashed']) expectProblem(await http().get(`/posts?status=${status}`), 401);
      const hers = await createPostWith(app, alice(), { title: 'Hers', body: 'x', status: 'draft' });
      const his = await createPostWith(app, bob(), { title: 'His', body: 'x', status: 'draft' });
      expect(await lists('/posts?status=draft&limit=100', hers.id, alice())).toBe(true);
      expect(await lists('/posts?status=draft&limit=100', his.id, alice())).toBe(false);
      expect(await lists('/posts?status=draft&limit=100', his.id, bob())).toBe(true);
      expect(await lists('/posts?status=draft&limit=100', hers.id, admin())).toBe(true);
      expect(await lists('/posts?status=draft&limit=100', his.id, admin())).toBe(true);
      expect(await lists(`/posts?status=draft&authorId=${BOB_ID}&limit=100`, hers.id, admin())).toBe(false);
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('trash', () => {
    it('DELETE moves a post to the trash (204, trashedAt); PATCH {status} restores it; a DELETE of a trashed post deletes it for good', async () => {
      const post = await createPostWith(app, alice(), { title: 'To the trash', body: 'and back' });
      const comment = await commentOn(app, post.id, bob(), 'A remark');

      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      const trashed = await readPost(app, post.id, alice());
      expectEditorialFields(trashed, 'trashed', 'the trashed post');
      expect(Date.parse(trashed.trashedAt!)).toBeGreaterThanOrEqual(Date.parse(post.createdAt));
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/comments/${comment.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/comments/${comment.id}`).set(auth(bob())), 404, 'NOT_FOUND');
      expect(await lists('/posts?status=trashed&limit=100', post.id, alice())).toBe(true);
      expect(await lists('/posts?status=trashed&limit=100', post.id, admin())).toBe(true);
      expect(await lists('/posts?limit=100', post.id)).toBe(false);

      const restored = await patchPost(app, post.id, alice(), { status: 'published' });
      expect(restored).toMatchObject({ status: 'published', trashedAt: null, publishedAt: post.publishedAt });
      await http().get(`/posts/${post.id}`).expect(200);
      expect((await http().get(`/comments/${comment.id}`).expect(200)).body.body).toBe('A remark');
      expect(await lists('/posts?status=trashed&limit=100', post.id, alice())).toBe(false);

      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      expect((await patchPost(app, post.id, alice(), { status: 'draft' })).status).toBe('draft');
      expectProblem(await http().get(`/posts/${post.id}`), 404, 'NOT_FOUND');

      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      expect((await readPost(app, post.id, alice())).status).toBe('trashed');
      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      for (const token of [alice(), admin()]) {
        expectProblem(await http().get(`/posts/${post.id}`).set(auth(token)), 404, 'NOT_FOUND');
        expectProblem(await http().get(`/comments/${comment.id}`).set(auth(token)), 404, 'NOT_FOUND');
        expectProblem(await http().get(`/posts/${post.id}/revisions`).set(auth(token)), 404, 'NOT_FOUND');
        expect(await lists('/posts?status=trashed&limit=100', post.id, token)).toBe(false);
      }
      expectProblem(await http().delete(`/posts/${post.id}`).set(auth(alice())), 404, 'NOT_FOUND');
      expectProblem(await http().patch(`/posts/${post.id}`).set(auth(alice())).send({ status: 'published' }), 404, 'NOT_FOUND');
    });

    it('an admin trashes and deletes for good a post of ALICE; GraphQL deletePost does the same, a call each', async () => {
      const post = await createPostWith(app, alice(), { title: 'An admin’s work', body: 'x' });
      await http().delete(`/posts/${post.id}`).set(auth(admin())).expect(204);
      expect((await readPost(app, post.id, alice())).status).toBe('trashed');
      await http().delete(`/posts/${post.id}`).set(auth(admin())).expect(204);
      expectProblem(await http().get(`/posts/${post.id}`).set(auth(alice())), 404, 'NOT_FOUND');

      const viaGraphql = expectData(await graphql(app, 'mutation { createPost(input: { title: "Deleted twice", body: "x" }) { id status } }', undefined, { token: alice() })).createPost;
      expect(viaGraphql.status).toBe('PUBLISHED');
      const remove = () => graphql(app, 'mutation($id: Int!) { deletePost(id: $id) }', { id: viaGraphql.id }, { token: alice() });
      expect(expectData(await remove()).deletePost).toBe(viaGraphql.id);
      const inTrash = expectData(await graphql(app, 'query($id: Int!) { post(id: $id) { status trashedAt } }', { id: viaGraphql.id }, { token: alice() })).post;
      expect(inTrash).toEqual({ status: 'TRASHED', trashedAt: expect.stringMatching(ISO) });
      expect(expectData(await graphql(app, 'query($id: Int!) { post(id: $id) { id } }', { id: viaGraphql.id })).post).toBeNull();
      expect(expectData(await remove()).deletePost).toBe(viaGraphql.id);
      for (const token of [alice(), admin()]) {
        expect(expectData(await graphql(app, 'query($id: Int!) { post(id: $id) { id } }', { id: viaGraphql.id }, { token })).post).toBeNull();
      }
      expect((await remove()).body.errors?.map((error) => error.extensions.code)).toEqual(['NOT_FOUND']);
    });

    it('deleting a user deletes their posts for good, the trash included', async () => {
      const user = await createUser(app);
      const ids: number[] = [];
      for (const state of ['published', 'draft', 'scheduled', 'trashed'] as const) ids.push((await createPostIn(app, user.token, state)).id);
      await http().delete(`/users/${user.id}`).set(auth(admin())).expect(204);
      for (const id of ids) expectProblem(await http().get(`/posts/${id}`).set(auth(admin())), 404, 'NOT_FOUND');
      for (const status of ['draft', 'scheduled', 'trashed']) {
        const listed = (await http().get(`/posts?status=${status}&limit=100`).set(auth(admin())).expect(200)).body as { id: number }[];
        expect(listed.filter((post) => ids.includes(post.id)), status).toEqual([]);
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('revisions', () => {
    it('creation is revision 1; each change of title, body or status adds one, numbered, with its editor; newest first', async () => {
      const post = await createPostWith(app, alice(), { title: 'R1', body: 'B1', status: 'draft' });
      const [first] = await revisionsOf(post.id);
      expect(first).toMatchObject({ number: 1, title: 'R1', body: 'B1', status: 'draft', editorId: ALICE_ID, createdAt: expect.stringMatching(ISO) });

      await patchPost(app, post.id, alice(), { title: 'R2' });
      await patchPost(app, post.id, alice(), { body: 'B3' });
      await patchPost(app, post.id, alice(), { status: 'published' });
      await patchPost(app, post.id, admin(), { title: 'R5' });

      const revisions = await revisionsOf(post.id);
      expect(revisions.map(({ number, title, body, status, editorId }) => ({ number, title, body, status, editorId }))).toEqual([
        { number: 5, title: 'R5', body: 'B3', status: 'published', editorId: ADMIN_ID },
        { number: 4, title: 'R2', body: 'B3', status: 'published', editorId: ALICE_ID },
        { number: 3, title: 'R2', body: 'B3', status: 'draft', editorId: ALICE_ID },
        { number: 2, title: 'R2', body: 'B1', status: 'draft', editorId: ALICE_ID },
        { number: 1, title: 'R1', body: 'B1', status: 'draft', editorId: ALICE_ID },
      ]);
      const times = revisions.map((revision) => Date.parse(revision.createdAt));
      expect(times).toEqual([...times].sort((a, b) => b - a));
      expect(await revisionsOf(post.id, admin())).toEqual(revisions);

      const third = await http().get(`/posts/${post.id}/revisions/3`).set(auth(alice())).expect(200);
      expect(third.body).toMatchObject({ number: 3, title: 'R2', body: 'B3', status: 'draft', editorId: ALICE_ID, createdAt: revisions[2].createdAt });
      // Trashing changes the status: one more.
      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      expect((await revisionsOf(post.id))[0]).toMatchObject({ number: 6, status: 'trashed', title: 'R5' });
    });

    it('GET /posts/{id}/revisions is paged like every list (limit, Link rel="next"), in JSON, HAL, XML and HTML', async () => {
      const post = await createPostWith(app, alice(), { title: 'Paged 1', body: 'x' });
      for (const n of [2, 3, 4]) await patchPost(app, post.id, alice(), { title: `Paged ${n}` });
      const path = `/posts/${post.id}/revisions`;

      const first = await http().get(`${path}?limit=2`).set(auth(alice())).expect(200);
      expect(first.body.map((revision: Revision) => revision.number)).toEqual([4, 3]);
      const next = nextLink(first);
      expect(next).toMatch(new RegExp(`^/posts/${post.id}/revisions\\?limit=2&cursor=[A-Za-z0-9_-]+$`));
      const second = await http().get(next!).set(auth(alice())).expect(200);
      expect(second.body.map((revision: Revision) => revision.number)).toEqual([2, 1]);
      expect(nextLink(second)).toBeNull();

      const hal = await http().get(`${path}?limit=2`).set(auth(alice())).set('accept', 'application/hal+json').expect(200);
      expect(hal.headers['content-type']).toMatch(/^application\/hal\+json/);
      const halBody = JSON.parse(hal.text) as { _links: { self: { href: string }; next?: { href: string } }; _embedded: { revisions: Revision[] } };
      expect(halBody._embedded.revisions.map((revision) => revision.number)).toEqual([4, 3]);
      expect(halBody._links.next?.href).toBe(next);

      const xml = await http().get(path).set(auth(alice())).set('accept', 'application/xml').expect(200);
      const root = parseXml(xml.text);
      expect(root.name).toBe('revisions');
      expect(root.children.map((child) => child.name)).toEqual(['revision', 'revision', 'revision', 'revision']);
      expect(root.children.map((child) => xmlFields(child).fields.number)).toEqual(['4', '3', '2', '1']);
      expect(xmlFields(root.children[0]).fields).toMatchObject({ title: 'Paged 4', status: 'published', editorId: String(ALICE_ID) });
      const one = parseXml((await http().get(`${path}/2`).set(auth(alice())).set('accept', 'application/xml').expect(200)).text);
      expect(one.name).toBe('revision');
      expect(xmlFields(one).fields).toMatchObject({ number: '2', title: 'Paged 2' });

      const html = await http().get(path).set(auth(alice())).set('accept', 'text/html').expect(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
      for (const n of [1, 2, 3, 4]) expect(html.text).toContain(`Paged ${n}`);
      expect((await http().get(`${path}/3`).set(auth(alice())).set('accept', 'text/html').expect(200)).text).toContain('Paged 3');

      expectProblem(await http().get(`${path}?limit=0`).set(auth(alice())), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get(`${path}?cursor=garbage`).set(auth(alice())), 400, 'BAD_USER_INPUT');
    });

    it('404 for an unknown revision number and for the revisions of a post that does not exist; 400 for a number that is not one', async () => {
      const post = await createPostWith(app, alice(), { title: 'One revision', body: 'x' });
      expectProblem(await http().get(`/posts/${post.id}/revisions/2`).set(auth(alice())), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${post.id}/revisions/99`).set(auth(admin())), 404, 'NOT_FOUND');
      expectProblem(await http().get('/posts/999999/revisions').set(auth(admin())), 404, 'NOT_FOUND');
      expectProblem(await http().get('/posts/999999/revisions/1').set(auth(admin())), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/posts/${post.id}/revisions/abc`).set(auth(alice())), 400, 'BAD_USER_INPUT');
    });

    it('PATCH {revision: n} restores the title and body of revision n: a new revision, a new ETag, the event follows; an unknown n changes nothing', async () => {
      const start = (await lastCursor(app, admin()))!;
      const post = await createPostWith(app, alice(), { title: 'Original', body: 'First words' });
      await patchPost(app, post.id, alice(), { title: 'Second thoughts' });
      await patchPost(app, post.id, alice(), { body: 'Other words' });
      const before = await http().get(`/posts/${post.id}`).set(auth(alice())).expect(200);

      const restored = await http().patch(`/posts/${post.id}`).set(auth(alice())).send({ revision: 1 });
      expect(restored.status, restored.text).toBe(200);
      expect(restored.body).toMatchObject({ title: 'Original', body: 'First words', status: 'published' });
      const after = await http().get(`/posts/${post.id}`).set(auth(alice())).expect(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expectProblem(await http().patch(`/posts/${post.id}`).set(auth(alice())).set('if-match', before.headers.etag as string).send({ title: 'Stale' }), 412);
      expect((await http().get(`/posts/${post.id}`).expect(200)).body).toMatchObject({ title: 'Original', body: 'First words' });

      const revisions = await revisionsOf(post.id);
      expect(revisions.map((revision) => [revision.number, revision.title, revision.body])).toEqual([
        [4, 'Original', 'First words'],
        [3, 'Second thoughts', 'Other words'],
        [2, 'Second thoughts', 'First words'],
        [1, 'Original', 'First words'],
      ]);
      const updates = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id && event.type === 'POST_UPDATED');
      expect(updates.at(-1)?.resource).toMatchObject({ title: 'Original', body: 'First words' });

      for (const unknown of [99, 0, -1]) {
        const refused = await http().patch(`/posts/${post.id}`).set(auth(alice())).send({ revision: unknown });
        expect(refused.status, `revision ${unknown}: ${refused.text}`).toBeGreaterThanOrEqual(400);
        expect(refused.status, `revision ${unknown}: ${refused.text}`).toBeLessThan(500);
      }
      for (const bad of ['one', 1.5]) expectProblem(await http().patch(`/posts/${post.id}`).set(auth(alice())).send({ revision: bad }), 400, 'BAD_USER_INPUT');
      expect((await revisionsOf(post.id)).length).toBe(4);
      expectProblem(await http().patch(`/posts/${post.id}`).set(auth(bob())).send({ revision: 1 }), 403, 'FORBIDDEN');
    });

    it('GraphQL: Post.revisions(first:) newest first, and updatePost(input: {revision}) restores', async () => {
      const created = expectData(await graphql(app, 'mutation { createPost(input: { title: "G1", body: "Gb1", status: DRAFT }) { id status } }', undefined, { token: alice() })).createPost;
      expect(created.status).toBe('DRAFT');
      const update = (input: string, token = alice()) =>
        graphql(app, `mutation($id: Int!) { updatePost(id: $id, input: ${input}) { id title body status publishedAt } }`, { id: created.id }, { token });
      expectData(await update('{ title: "G2" }'));
      const published = expectData(await update('{ status: PUBLISHED }')).updatePost;
      expect(published).toMatchObject({ status: 'PUBLISHED', publishedAt: expect.stringMatching(ISO) });

      const query = 'query($id: Int!, $first: Int) { post(id: $id) { revisions(first: $first) { number title body status editorId createdAt } } }';
      const all = expectData(await graphql(app, query, { id: created.id }, { token: alice() })).post.revisions;
      expect(all.map((revision: Revision) => [revision.number, revision.title, revision.status, revision.editorId])).toEqual([
        [3, 'G2', 'PUBLISHED', ALICE_ID],
        [2, 'G2', 'DRAFT', ALICE_ID],
        [1, 'G1', 'DRAFT', ALICE_ID],
      ]);
      expect(all[0].createdAt).toMatch(ISO);
      expect(expectData(await graphql(app, query, { id: created.id, first: 1 }, { token: admin() })).post.revisions.map((revision: Revision) => revision.number)).toEqual([3]);

      expect(expectData(await update('{ revision: 1 }')).updatePost).toMatchObject({ title: 'G1', body: 'Gb1', status: 'PUBLISHED' });
      expect(expectData(await graphql(app, query, { id: created.id, first: 1 }, { token: alice() })).post.revisions[0]).toMatchObject({ number: 4, title: 'G1' });
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('events and subscriptions', () => {
    it('GET /events: a published post’s life reads POST_CREATED, POST_UPDATED, POST_UNPUBLISHED, POST_PUBLISHED, POST_UNPUBLISHED, POST_DELETED; the changes of the draft are ALICE’s', async () => {
      const start = (await lastCursor(app, admin()))!;
      const post = await createPostWith(app, alice(), { title: 'A life', body: 'x' });
      await patchPost(app, post.id, alice(), { title: 'A life, changed' });
      await patchPost(app, post.id, alice(), { status: 'draft' });
      const secret = marker('private');
      await patchPost(app, post.id, alice(), { title: `A life ${secret}` });
      await patchPost(app, post.id, alice(), { status: 'published' });
      await patchPost(app, post.id, alice(), { title: 'A life, public again' });
      // Published again: the post as it became public, with the title written while it was a draft;
      // the events of its first public life lost their content when it was unpublished (CONTRACT §18).
      const whilePublic = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id);
      expect(whilePublic.map((event) => [event.type, event.resource?.title])).toEqual([
        ['POST_CREATED', undefined],
        ['POST_UPDATED', undefined],
        ['POST_UNPUBLISHED', undefined],
        ['POST_PUBLISHED', `A life ${secret}`],
        ['POST_UPDATED', 'A life, public again'],
      ]);
      expect(whilePublic[3].resource).toMatchObject({ id: post.id, status: 'published' });
      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);

      // Read before the post is deleted for good (which erases the content of its events); trashed,
      // its public events keep their ids only.
      const publicEvents = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id);
      expect(publicEvents.map((event) => event.type)).toEqual(['POST_CREATED', 'POST_UPDATED', 'POST_UNPUBLISHED', 'POST_PUBLISHED', 'POST_UPDATED', 'POST_UNPUBLISHED']);
      expect(publicEvents.map((event) => event.cursor).slice(0, whilePublic.length)).toEqual(whilePublic.map((event) => event.cursor));
      for (const event of publicEvents) {
        expect(event, event.type).toMatchObject({ postId: post.id, authorId: ALICE_ID });
        expect(event.resource ?? null, `${event.type} carries ids only`).toBeNull();
      }
      // The draft's own change is not in the public feed; ALICE and admins read it.
      expect(whilePublic.filter((event) => event.type === 'POST_UPDATED' && ((event.resource?.title as string | undefined) ?? '').includes(secret))).toEqual([]);
      for (const token of [alice(), admin()]) {
        const theirs = (await eventsSince(app, token, start)).filter((event) => event.postId === post.id);
        const draftChange = theirs.find((event) => event.type === 'POST_UPDATED' && event.resource?.title === `A life ${secret}`);
        expect(draftChange?.resource).toMatchObject({ status: 'draft' });
        // Everything the public reads, they read too, in the same order.
        const cursors = theirs.map((event) => event.cursor);
        expect(publicEvents.map((event) => cursors.indexOf(event.cursor))).toEqual([...publicEvents.map((event) => cursors.indexOf(event.cursor))].sort((a, b) => a - b));
        expect(publicEvents.every((event) => cursors.includes(event.cursor))).toBe(true);
      }
      const filtered = (await eventsSince(app, undefined, start, '&types=POST_PUBLISHED,POST_UNPUBLISHED')).filter((event) => event.postId === post.id);
      expect(filtered.map((event) => event.type)).toEqual(['POST_UNPUBLISHED', 'POST_PUBLISHED', 'POST_UNPUBLISHED']);

      // Deleted for good from the trash: POST_DELETED, for everyone, with ids only.
      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      const last = (await eventsSince(app, undefined, start)).filter((event) => event.postId === post.id).at(-1)!;
      expect(last).toMatchObject({ type: 'POST_DELETED', postId: post.id, authorId: ALICE_ID });
      expect(last.resource ?? null).toBeNull();
    });

    it('a draft published by PATCH: POST_CREATED for ALICE and admins, then POST_PUBLISHED for everyone; a post created published: POST_CREATED only', async () => {
      const start = (await lastCursor(app, admin()))!;
      const draft = await createPostWith(app, alice(), { title: 'Published later', body: 'x', status: 'draft' });
      await patchPost(app, draft.id, alice(), { status: 'published' });
      const atOnce = await createPostWith(app, alice(), { title: 'Published at once', body: 'x' });
      const typesFor = (events: FeedEvent[], id: number) => events.filter((event) => event.postId === id).map((event) => event.type);

      const anonymous = await eventsSince(app, undefined, start);
      expect(typesFor(anonymous, draft.id)).toEqual(['POST_PUBLISHED']);
      expect(anonymous.find((event) => event.postId === draft.id)?.resource).toMatchObject({ id: draft.id, status: 'published', publishedAt: expect.stringMatching(ISO) });
      expect(typesFor(anonymous, atOnce.id)).toEqual(['POST_CREATED']);
      expect(typesFor(await eventsSince(app, bob(), start), draft.id)).toEqual(['POST_PUBLISHED']);
      for (const token of [alice(), admin()]) {
        const theirs = await eventsSince(app, token, start);
        expect(typesFor(theirs, draft.id)).toEqual(['POST_CREATED', 'POST_PUBLISHED']);
        expect(typesFor(theirs, atOnce.id)).toEqual(['POST_CREATED']);
      }
    });

    it('postCreated and postDeleted over WebSocket and SSE follow visibility: the public is told when ALICE’s post becomes public and when it stops being public; ALICE and an admin when her draft is created and deleted for good', async () => {
      type Field = 'postCreated' | 'postDeleted';
      const listeners = ['anonymous', 'bob', 'alice', 'admin'] as const;
      const subs = new Map<string, LiveSubscription>();
      for (const caller of listeners) {
        const ws = wsClient(urls.ws, { token: callers[caller].token });
        clients.push(ws);
        await ws.connected;
        const sse = sseClient(urls.http, callers[caller].token);
        sseClients.push(sse);
        for (const [transport, client] of [
          ['WebSocket', ws.client],
          ['SSE', sse],
        ] as [string, OperationClient][]) {
          for (const field of ['postCreated', 'postDeleted'] as Field[]) {
            const subscription = new LiveSubscription(client, field === 'postCreated' ? 'subscription { postCreated { id status } }' : 'subscription { postDeleted }');
            subscriptions.push(subscription);
            subs.set(`${caller} ${field} over ${transport}`, subscription);
          }
        }
      }
      /** BOB's public post, written and deleted for good: every subscription hears of it, after all that came before. */
      const checkpoint = async () => {
        const probe = await createPostWith(app, bob(), { title: 'Checkpoint', body: 'x' });
        await http().delete(`/posts/${probe.id}`).set(auth(bob())).expect(204);
        await http().delete(`/posts/${probe.id}`).set(auth(bob())).expect(204);
        return probe.id;
      };
      await warmUp([...subs.values()], async () => void (await checkpoint()));
      const sync = async () => {
        const id = await checkpoint();
        await until('every subscription to hear of the checkpoint', () =>
          [...subs.entries()].every(([name, subscription]) => valuesOf(subscription).some((value) => (name.includes('postCreated') ? value?.id === id : value === id))),
        );
      };
      const count = (caller: string, field: Field, id: number) =>
        ['WebSocket', 'SSE'].map((transport) => {
          const subscription = subs.get(`${caller} ${field} over ${transport}`)!;
          expect(subscription.results.filter((result) => result.errors), `${caller} ${field} over ${transport}`).toEqual([]);
          return valuesOf(subscription).filter((value) => (field === 'postCreated' ? value?.id === id : value === id)).length;
        });

      const post = await createPostWith(app, alice(), { title: 'Followed', body: 'x', status: 'draft' });
      await sync();
      for (const caller of ['anonymous', 'bob']) expect(count(caller, 'postCreated', post.id), `${caller}: postCreated of a draft`).toEqual([0, 0]);
      for (const caller of ['alice', 'admin']) expect(count(caller, 'postCreated', post.id), `${caller}: postCreated of the draft`).toEqual([1, 1]);
      const created = subs.get('alice postCreated over WebSocket')!.values.find((value) => value?.id === post.id);
      expect(created.status).toBe('DRAFT');

      await patchPost(app, post.id, alice(), { status: 'published' });
      await sync();
      for (const caller of ['anonymous', 'bob']) expect(count(caller, 'postCreated', post.id), `${caller}: postCreated when published`).toEqual([1, 1]);

      await patchPost(app, post.id, alice(), { status: 'draft' });
      await sync();
      for (const caller of ['anonymous', 'bob']) expect(count(caller, 'postDeleted', post.id), `${caller}: postDeleted when unpublished`).toEqual([1, 1]);

      await patchPost(app, post.id, alice(), { status: 'published' });
      await sync();
      for (const caller of ['anonymous', 'bob']) expect(count(caller, 'postCreated', post.id), `${caller}: postCreated when published again`).toEqual([2, 2]);

      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      await sync();
      for (const caller of ['anonymous', 'bob']) expect(count(caller, 'postDeleted', post.id), `${caller}: postDeleted when trashed`).toEqual([2, 2]);

      await http().delete(`/posts/${post.id}`).set(auth(alice())).expect(204);
      await sync();
      for (const caller of ['alice', 'admin']) {
        for (const seen of count(caller, 'postDeleted', post.id)) expect(seen, `${caller}: postDeleted when deleted for good`).toBeGreaterThanOrEqual(1);
      }
    }, 90_000);

    it('webhooks for POST_PUBLISHED and POST_UNPUBLISHED get them for public posts only', async () => {
      const receiver = await new Receiver().start();
      receivers.push(receiver);
      const hook = await http().post('/webhooks').set(auth(admin())).send({ url: receiver.url(), types: ['POST_PUBLISHED', 'POST_UNPUBLISHED'] });
      expect(hook.status, hook.text).toBe(201);
      try {
        const followed = await createPostWith(app, alice(), { title: 'Hooked', body: 'x', status: 'draft' });
        await patchPost(app, followed.id, alice(), { status: 'published' });
        // Delivered while the post is public: one sent after it went back to draft carries no
        // resource (the draft withdraws its content from the stored events, CONTRACT §18).
        await until('the POST_PUBLISHED of the followed post', () => receiver.payloads().some((payload) => payload.data.postId === followed.id && payload.type === 'POST_PUBLISHED'), 20_000);
        await patchPost(app, followed.id, alice(), { status: 'draft' });
        const quiet = await createPostWith(app, alice(), { title: 'Never public', body: 'x', status: 'draft' });
        await patchPost(app, quiet.id, alice(), { status: 'scheduled', publishAt: fromNow(3_600_000) });
        await http().delete(`/posts/${quiet.id}`).set(auth(alice())).expect(204);
        const last = await createPostWith(app, bob(), { title: 'Last', body: 'x', status: 'draft' });
        await patchPost(app, last.id, bob(), { status: 'published' });

        // Deliveries run concurrently: wait for the last post's and for as many as the public changes made.
        await until('the POST_PUBLISHED of the last post, and three deliveries', () => receiver.payloads().some((payload) => payload.data.postId === last.id) && receiver.payloads().length >= 3, 20_000);
        const seen = receiver.payloads().map((payload) => `${payload.type} ${payload.data.postId}`);
        expect([...seen].sort()).toEqual([`POST_PUBLISHED ${followed.id}`, `POST_PUBLISHED ${last.id}`, `POST_UNPUBLISHED ${followed.id}`].sort());
        const unpublished = receiver.payloads().find((payload) => payload.type === 'POST_UNPUBLISHED')!;
        expect(unpublished.data.resource ?? null).toBeNull();
        expect(receiver.payloads().find((payload) => payload.data.postId === followed.id && payload.type === 'POST_PUBLISHED')!.data.resource).toMatchObject({ title: 'Hooked', status: 'published' });
      } finally {
        await http().delete(`/webhooks/${hook.body.id}`).set(auth(admin()));
      }
    });
  });

  // -------------------------------------------------------------------------------------------
  describe('GraphQL', () => {
    it('createPost with status DRAFT or SCHEDULED, updatePost to PUBLISHED, and posts(status:) for the author, an admin, another author and anonymous', async () => {
      const publishAt = fromNow(3_600_000);
      const draft = expectData(await graphql(app, 'mutation { createPost(input: { title: "GQL draft", body: "x", status: DRAFT }) { id status publishAt publishedAt trashedAt } }', undefined, { token: alice() })).createPost;
      expect(draft).toMatchObject({ status: 'DRAFT', publishAt: null, publishedAt: null, trashedAt: null });
      const scheduled = expectData(
        await graphql(app, 'mutation($at: DateTime!) { createPost(input: { title: "GQL scheduled", body: "x", status: SCHEDULED, publishAt: $at }) { id status publishAt publishedAt } }', { at: publishAt }, { token: alice() }),
      ).createPost;
      expect(scheduled).toMatchObject({ status: 'SCHEDULED', publishAt, publishedAt: null });

      const list = async (status: string, token?: string) => graphql(app, `{ posts(status: ${status}, first: 100) { totalCount nodes { id status authorId } } }`, undefined, { token });
      const drafts = expectData(await list('DRAFT', alice())).posts;
      expect(drafts.nodes.map((node: { id: number }) => node.id)).toContain(draft.id);
      expect(drafts.totalCount).toBe(drafts.nodes.length);
      for (const node of drafts.nodes) expect(node).toMatchObject({ status: 'DRAFT', authorId: ALICE_ID });
      expect(expectData(await list('SCHEDULED', admin())).posts.nodes.map((node: { id: number }) => node.id)).toContain(scheduled.id);
      expect(expectData(await list('DRAFT', bob())).posts.nodes.map((node: { id: number }) => node.id)).not.toContain(draft.id);
      expect((await list('DRAFT')).body.errors?.map((error) => error.extensions.code)).toEqual(['UNAUTHENTICATED']);

      const updated = expectData(await graphql(app, 'mutation($id: Int!) { updatePost(id: $id, input: { status: PUBLISHED }) { status publishedAt } }', { id: scheduled.id }, { token: alice() })).updatePost;
      expect(updated).toMatchObject({ status: 'PUBLISHED', publishedAt: expect.stringMatching(ISO) });
      expect(expectData(await graphql(app, 'query($id: Int!) { post(id: $id) { status } }', { id: scheduled.id })).post).toEqual({ status: 'PUBLISHED' });
      const rescheduled = await graphql(app, 'mutation($id: Int!, $at: DateTime) { updatePost(id: $id, input: { status: SCHEDULED, publishAt: $at }) { status publishAt } }', { id: draft.id, at: publishAt }, { token: alice() });
      expect(expectData(rescheduled).updatePost).toEqual({ status: 'SCHEDULED', publishAt });
    });

    it('the schema has §7’s names: PostStatus, Post’s new fields, PostRevision, posts(status:), the inputs, and the new event types', () => {
      const schema = app.app.get(GraphQLSchemaHost).schema;
      const enumValues = (name: string) => {
        const type = schema.getType(name);
        expect(isEnumType(type), name).toBe(true);
        return (type as GraphQLEnumType).getValues().map((value) => value.name);
      };
      // §16 adds IN_REVIEW.
      expect(enumValues('PostStatus').sort()).toEqual(['DRAFT', 'IN_REVIEW', 'PUBLISHED', 'SCHEDULED', 'TRASHED']);
      expect(enumValues('EventType')).toEqual(expect.arrayContaining(['POST_PUBLISHED', 'POST_UNPUBLISHED']));
      expect(fieldTypes(schema, 'Post')).toMatchObject({
        status: 'PostStatus!',
        publishAt: 'DateTime',
        publishedAt: 'DateTime',
        trashedAt: 'DateTime',
        'revisions(first: Int = 20)': '[PostRevision!]!',
      });
      expect(fieldTypes(schema, 'PostRevision')).toMatchObject({ number: 'Int!', title: 'String!', body: 'String!', status: 'PostStatus!', createdAt: 'DateTime!' });
      expect(Object.keys(fieldTypes(schema, 'PostRevision'))).toContain('editorId');
      expect(Object.keys(fieldTypes(schema, 'Query'))).toEqual(expect.arrayContaining([expect.stringMatching(/^posts\(.*status: PostStatus[,)]/)]));
      expect(inputTypes(schema, 'CreatePostInput')).toMatchObject({ status: 'PostStatus', publishAt: 'DateTime' });
      expect(inputTypes(schema, 'UpdatePostInput')).toMatchObject({ status: 'PostStatus', publishAt: 'DateTime', revision: 'Int' });
    });
  });
});

/** An object type's fields as "name(args)" → type (no parentheses without arguments). */
function fieldTypes(schema: GraphQLSchema, name: string): Record<string, string> {
  const type = schema.getType(name);
  expect(isObjectType(type), name).toBe(true);
  const fields = Object.values((type as GraphQLObjectType).getFields()) as GraphQLField<unknown, unknown>[];
  return Object.fromEntries(
    fields.map((field) => {
      const args = field.args.map((arg) => `${arg.name}: ${String(arg.type)}${arg.defaultValue === undefined ? '' : ` = ${JSON.stringify(arg.defaultValue)}`}`).sort();
      return [args.length ? `${field.name}(${args.join(', ')})` : field.name, String(field.type)];
    }),
  );
}

function inputTypes(schema: GraphQLSchema, name: string): Record<string, string> {
  const type = schema.getType(name);
  expect(isInputObjectType(type), name).toBe(true);
  return Object.fromEntries(Object.values((type as GraphQLInputObjectType).getFields()).map((field) => [field.name, String(field.type)]));
}
