import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { createClient as createSseClient } from 'graphql-sse';
import { listen, type ListeningApp, LiveSubscription, type OperationClient, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

interface EntryRow {
  id: number | string;
  actor_id: number | null;
  actor_credential: string | null;
  actor_key_id: number | null;
  action: string;
  resource_type: string;
  resource_id: number | null;
  changes: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

/**
 * The audit log's core (CONTRACT §16): an entry per change, written in the change's transaction,
 * with who (actor and credential), what (action, resource, {field: {from, to}}) and where from
 * (address, user agent, request id) on every door: REST, GraphQL over HTTP and over WebSocket.
 */
describeEachDatabase('audit log', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, signIn: ['admin', 'alice'], timeout: 60_000 });
  const http = () => request(app.server);
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  const entriesOf = (type: string, id: number) => sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', [type, id]);
  let urls: ListeningApp;
  /** A demo user's id, from their token's subject. */
  const idOf = (user: 'admin' | 'alice') => Number((JSON.parse(Buffer.from(app.tokens[user].split('.')[1], 'base64url').toString()) as { sub: string }).sub);

  beforeAll(async () => {
    urls = await listen(app);
  });

  it('REST: a created and changed post has its entries, with actor, changes and where they came from', async () => {
    const created = await http().post('/posts').set(bearer(app.tokens.alice)).set('user-agent', 'audit-test/1.0').set('x-request-id', 'req-audit-1').send({ title: 'Audited', body: 'First', status: 'draft' }).expect(201);
    const id = created.body.id as number;
    await http().patch(`/posts/${id}`).set(bearer(app.tokens.alice)).set('x-request-id', 'req-audit-2').send({ title: 'Audited again', body: 'Second', status: 'published' }).expect(200);
    const entries = await entriesOf('post', id);
    expect(entries.map((entry) => entry.action)).toEqual(['posts.create', 'posts.publish']);
    const [first, second] = entries;
    expect(first).toMatchObject({ actor_id: idOf('alice'), actor_credential: 'token', actor_key_id: null, user_agent: 'audit-test/1.0', request_id: 'req-audit-1' });
    expect(first.ip).toMatch(/127\.0\.0\.1|::1/);
    expect(JSON.parse(first.changes)).toMatchObject({ title: { from: null, to: 'Audited' }, status: { from: null, to: 'draft' }, body: { from: null, to: { revision: 1 } } });
    expect(second.request_id).toBe('req-audit-2');
    expect(JSON.parse(second.changes)).toMatchObject({ title: { from: 'Audited', to: 'Audited again' }, status: { from: 'draft', to: 'published' }, body: { from: { revision: 1 }, to: { revision: 2 } } });
  });

  it('a change that is refused or rolls back leaves no entry', async () => {
    const before = await sql<{ n: number | string }>('SELECT COUNT(*) AS n FROM audit_entries');
    // A slug taken by another post: the write fails inside its transaction.
    const taken = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Slug holder', body: 'x', slug: 'audit-slug-holder' }).expect(201);
    const other = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Slug taker', body: 'x' }).expect(201);
    const afterCreates = Number(before[0].n) + 2;
    await http().patch(`/posts/${other.body.id}`).set(bearer(app.tokens.alice)).send({ title: 'Renamed', slug: 'audit-slug-holder' }).expect(409);
    await http().patch(`/posts/${other.body.id}`).set(bearer(app.tokens.alice)).set('if-match', '"999"').send({ title: 'Stale' }).expect(412);
    expect(taken.body.id).toBeGreaterThan(0);
    expect(Number((await sql<{ n: number | string }>('SELECT COUNT(*) AS n FROM audit_entries'))[0].n)).toBe(afterCreates);
  });

  it('GraphQL over HTTP, WebSocket and SSE: each mutation has its entry with the source of its own request or socket', async () => {
    const viaHttp = expectData(await graphql(app, 'mutation { createPost(input: { title: "Via HTTP", body: "b" }) { id } }', undefined, { token: app.tokens.alice }));
    const [httpEntry] = await entriesOf('post', Number(viaHttp.createPost.id));
    expect(httpEntry).toMatchObject({ action: 'posts.create', actor_id: idOf('alice'), actor_credential: 'token' });
    expect(httpEntry.request_id).toMatch(/\S+/);

    const ws = wsClient(urls.ws, { token: app.tokens.alice });
    await ws.connected;
    const operation = new LiveSubscription(ws.client, 'mutation { createPost(input: { title: "Via WebSocket", body: "b" }) { id } }');
    const [result] = await until('the mutation over the socket', () => operation.results.length > 0 && operation.results);
    const [wsEntry] = await entriesOf('post', Number(result.data.createPost.id));
    expect(wsEntry).toMatchObject({ action: 'posts.create', actor_id: idOf('alice'), actor_credential: 'token' });
    expect(wsEntry.ip).toMatch(/127\.0\.0\.1|::1/);
    expect(wsEntry.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(wsEntry.request_id).not.toBe(httpEntry.request_id);
    await ws.dispose();

    const sse = createSseClient({ url: `${urls.http}/graphql/stream`, singleConnection: false, retryAttempts: 0, headers: { authorization: `Bearer ${app.tokens.alice}`, 'user-agent': 'sse-agent/2', 'x-request-id': 'req-over-sse' } });
    try {
      const overSse = new LiveSubscription(sse as OperationClient, 'mutation { createPost(input: { title: "Via SSE", body: "b" }) { id } }');
      const [sseResult] = await until('the mutation over SSE', () => overSse.results.length > 0 && overSse.results);
      const [sseEntry] = await entriesOf('post', Number(sseResult.data.createPost.id));
      expect(sseEntry).toMatchObject({ action: 'posts.create', actor_id: idOf('alice'), actor_credential: 'token', user_agent: 'sse-agent/2', request_id: 'req-over-sse' });
    } finally {
      sse.dispose();
    }
  });

  it('the scheduler publishes as the system', async () => {
    const created = await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 'Due soon', body: 'b', status: 'scheduled', publishAt: new Date(Date.now() + 1500).toISOString() }).expect(201);
    const id = created.body.id as number;
    const published = await until('the scheduled publication', async () => (await entriesOf('post', id)).find((entry) => entry.action === 'posts.publish'), 15_000, 100);
    expect(published).toMatchObject({ actor_id: null, actor_credential: 'system', ip: null, request_id: null });
    expect(JSON.parse(published.changes)).toMatchObject({ status: { from: 'scheduled', to: 'published' } });
  });

  it('the life of a post on REST and GraphQL: trash, restore, delete for good, review, and writing for another author', async () => {
    const admin = idOf('admin');
    const gql = async (query: string, user: 'admin' | 'alice' = 'alice') => expectData(await graphql(app, query, undefined, { token: app.tokens[user] }));
    // REST: trash, restore, trash, delete for good.
    const rest = (await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Lifecycle', body: 'b' }).expect(201)).body.id as number;
    await http().delete(`/posts/${rest}`).set(bearer(app.tokens.alice)).expect(204);
    await http().patch(`/posts/${rest}`).set(bearer(app.tokens.alice)).send({ status: 'draft' }).expect(200);
    await http().delete(`/posts/${rest}`).set(bearer(app.tokens.alice)).expect(204);
    await http().delete(`/posts/${rest}`).set(bearer(app.tokens.alice)).expect(204);
    const restEntries = await entriesOf('post', rest);
    expect(restEntries.map((entry) => entry.action)).toEqual(['posts.create', 'posts.trash', 'posts.restore', 'posts.trash', 'posts.delete']);
    expect(JSON.parse(restEntries[2].changes)).toMatchObject({ status: { from: 'trashed', to: 'draft' } });
    // Deleted for good: its title leaves every entry about it (v3 Privacy); states and ids stay.
    expect(JSON.parse(restEntries[4].changes)).toMatchObject({ title: { from: '[erased]', to: null }, status: { from: 'trashed', to: null } });
    expect(JSON.parse(restEntries[0].changes)).toMatchObject({ title: { from: null, to: '[erased]' }, status: { from: null, to: 'published' }, body: { from: null, to: { revision: 1 } } });
    // GraphQL: submitted, then approved by an admin; scheduled, moved, trashed.
    const submitted = Number((await gql('mutation { createPost(input: { title: "For review", body: "b", status: IN_REVIEW }) { id } }')).createPost.id);
    await gql(`mutation { reviewPost(id: ${submitted}, decision: APPROVE, note: "Fine") { id } }`, 'admin');
    const reviewed = await entriesOf('post', submitted);
    expect(reviewed.map((entry) => [entry.action, entry.actor_id])).toEqual([
      ['posts.create', idOf('alice')],
      ['posts.review', admin],
    ]);
    expect(JSON.parse(reviewed[1].changes)).toMatchObject({ status: { from: 'in_review', to: 'published' }, decision: { from: null, to: 'approve' }, note: { from: null, to: 'Fine' } });
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();
    const scheduled = Number((await gql(`mutation { createPost(input: { title: "Later", body: "b", status: SCHEDULED, publishAt: "${later(3_600_000)}" }) { id } }`)).createPost.id);
    await gql(`mutation { updatePost(id: ${scheduled}, input: { publishAt: "${later(7_200_000)}" }) { id } }`);
    await gql(`mutation { updatePost(id: ${scheduled}, input: { tags: ["audited"] }) { id } }`);
    await gql(`mutation { deletePost(id: ${scheduled}) }`);
    const life = await entriesOf('post', scheduled);
    expect(life.map((entry) => entry.action)).toEqual(['posts.create', 'posts.schedule', 'posts.update', 'posts.trash']);
    expect(JSON.parse(life[2].changes)).toEqual({ tags: { from: [], to: ['audited'] } });
    // An admin writing for alice: the entry is the admin's, the author alice.
    const forAlice = (await http().post('/posts').set(bearer(app.tokens.admin)).send({ title: 'For Alice', body: 'b', authorId: idOf('alice') }).expect(201)).body.id as number;
    const [written] = await entriesOf('post', forAlice);
    expect(written.actor_id).toBe(admin);
    expect(JSON.parse(written.changes)).toMatchObject({ authorId: { from: null, to: idOf('alice') } });
  });
});
