import { createClient as createSseClient } from 'graphql-sse';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { Sql } from '../src/common/persistence/sql.js';
import { sql as statement } from '../src/common/persistence/sql-template.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { encodeEventCursor } from '../src/events/event-cursor.js';
import { OutboxRepository } from '../src/events/outbox.repository.js';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { type ListeningApp, listen, LiveSubscription, type OperationClient, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §18: content that stops being public (a post unpublished or trashed, a comment set to
 * `spam` or `hidden`) leaves the public event log as deleted content does: its earlier public
 * events keep type, ids and time, not their text, in GET /events, /events/{cursor} and events(after:)
 * replays (WebSocket and SSE). Content made public again is announced with its text by the new
 * event; the earlier ones stay without. And a replay never resolves a snapshot's nested fields
 * (comments, commentCount, tags, replies) beyond what the reader may see now.
 */

interface EventItem {
  cursor: string;
  type: string;
  postId?: number;
  commentId?: number;
  resource?: Record<string, unknown>;
}

type Reader = 'anonymous' | 'admin';

describeEachDatabase('content withdrawal: what stops being public leaves the public event log', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let admin: string;
  let alice: string;
  let bob: string;
  const clients: WsClient[] = [];
  const closers: (() => unknown)[] = [];
  const subscriptions: LiveSubscription[] = [];

  const post = async (token: string, title: string, tags?: string[]) =>
    (await request(app.server).post('/posts').set(bearer(token)).send({ title, body: `${title}, the body`, ...(tags ? { tags } : {}) }).expect(201)).body as { id: number };
  const comment = async (token: string, postId: number, body: string, parentId?: number) =>
    (await request(app.server).post(`/posts/${postId}/comments`).set(bearer(token)).send({ body, ...(parentId ? { parentId } : {}) }).expect(201)).body as { id: number };

  /**
   * PostgreSQL shows an event once every transaction older than it on the cluster has ended
   * (OutboxRepository): waits until the log shows every event written so far.
   */
  async function caughtUp(): Promise<void> {
    const sql = app.app.get(Sql);
    const visible = sql.dialect.eventsVisible;
    if (!visible) return;
    await until('the log to show every event', async () => {
      const [row] = await sql.rows<{ held: number | string }>(statement`SELECT COUNT(*) AS held FROM events WHERE NOT (${statement.raw(visible)})`);
      return Number(row.held) === 0;
    }, 60_000);
  }

  async function eventsAfter(after: string | undefined, token?: string): Promise<EventItem[]> {
    await caughtUp();
    const response = await request(app.server).get(`/events?limit=100${after ? `&after=${after}` : ''}`).set(token ? bearer(token) : {}).expect(200);
    return response.body as EventItem[];
  }
  /** The cursor of the newest event, whoever may read it (no reader sees them all: the public deletion of a hidden comment is not for its moderators). */
  const head = async () => {
    await caughtUp();
    return encodeEventCursor(await app.app.get(OutboxRepository).latest());
  };
  /** What of `texts` an anonymous reader still finds after `after`: in GET /events in every format, and by each event's cursor. */
  async function publicly(after: string | undefined, texts: string[]): Promise<string[]> {
    await caughtUp();
    const query = `/events?limit=100${after ? `&after=${after}` : ''}`;
    const formats = await Promise.all(['application/json', 'application/xml', 'application/hal+json', 'text/html'].map((accept) => request(app.server).get(query).set('Accept', accept).expect(200)));
    const singles = await Promise.all((await eventsAfter(after)).map((item) => request(app.server).get(`/events/${item.cursor}`).expect(200)));
    return texts.filter((text) => [...formats, ...singles].some((response) => response.text.includes(text)));
  }

  async function operations(reader: Reader, transport: 'ws' | 'sse'): Promise<OperationClient> {
    const token = reader === 'admin' ? admin : undefined;
    if (transport === 'ws') {
      const ws = wsClient(urls.ws, { token });
      clients.push(ws);
      await ws.connected;
      return ws.client;
    }
    const client = createSseClient({ url: `${urls.http}/graphql/stream`, singleConnection: false, retryAttempts: 0, headers: token ? { authorization: `Bearer ${token}` } : {} });
    closers.push(() => client.dispose());
    return client;
  }

  /** The events after `after` a reader's events(after:) replay yields, over each transport (`count` of them). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function replays(reader: Reader, query: string, after: string | undefined, count: number): Promise<any[][]> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const results: any[][] = [];
    for (const transport of ['ws', 'sse'] as const) {
      await caughtUp();
      const subscription = new LiveSubscription(await operations(reader, transport), query, { after });
      subscriptions.push(subscription);
      results.push(await subscription.received(count));
    }
    return results;
  }

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    admin = await tokenFor(app, ADMIN);
    alice = await tokenFor(app, ALICE);
    bob = await tokenFor(app, BOB);
    await post(bob, 'First');
  });
  afterEach(async () => {
    for (const subscription of subscriptions.splice(0)) subscription.dispose();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
    for (const close of closers.splice(0)) await close();
  });
  afterAll(() => app?.close());

  const REPLAY = 'subscription($after: String) { events(after: $after) { type postId commentId post { title } comment { body } } }';

  it('unpublishing or trashing a post strips its earlier public events and its comments\'; republishing announces it anew', async () => {
    const start = await head();
    const unpublished = await post(alice, 'Unpublished secret');
    await request(app.server).patch(`/posts/${unpublished.id}`).set(bearer(alice)).send({ body: 'Unpublished secret, edited' }).expect(200);
    await comment(bob, unpublished.id, 'Remark on the unpublished');
    const trashed = await post(alice, 'Trashed secret');
    await comment(bob, trashed.id, 'Remark on the trashed');
    const kept = await post(alice, 'Kept public');
    const before = await eventsAfter(start, admin);
    expect(await publicly(start, ['Unpublished secret', 'Remark on the unpublished', 'Trashed secret', 'Remark on the trashed', 'Kept public'])).toHaveLength(5);

    await request(app.server).patch(`/posts/${unpublished.id}`).set(bearer(alice)).send({ status: 'draft' }).expect(200);
    await request(app.server).delete(`/posts/${trashed.id}`).set(bearer(alice)).expect(204);

    expect(await publicly(start, ['Unpublished secret', 'Remark on the unpublished', 'Trashed secret', 'Remark on the trashed', 'Kept public'])).toEqual(['Kept public']);
    // The events stay, with their ids, type and time.
    const after = await eventsAfter(start);
    expect(after.slice(0, before.length).map(({ cursor, type, postId, commentId }) => ({ cursor, type, postId, commentId }))).toEqual(
      before.map(({ cursor, type, postId, commentId }) => ({ cursor, type, postId, commentId })),
    );
    for (const item of after.filter((event) => event.postId !== kept.id)) expect(item.resource, `${item.type} of post ${item.postId}`).toBeUndefined();
    // Those who still see the post keep what is theirs: the draft's own event for its author.
    const alices = await eventsAfter(start, alice);
    expect(alices.find((item) => item.postId === unpublished.id && item.type === 'POST_UPDATED' && item.resource?.status === 'draft')?.resource).toMatchObject({ body: 'Unpublished secret, edited' });

    for (const replayed of await replays('anonymous', REPLAY, start, after.length)) {
      const ofWithdrawn = replayed.filter((item: { postId: number }) => item.postId !== kept.id);
      expect(ofWithdrawn.map((item: { post: unknown; comment: unknown }) => [item.post, item.comment])).toEqual(ofWithdrawn.map(() => [null, null]));
      expect(replayed.find((item: { postId: number }) => item.postId === kept.id).post).toEqual({ title: 'Kept public' });
    }

    // Public again: the new event carries the post; the earlier ones stay without.
    const republish = await head();
    await request(app.server).patch(`/posts/${unpublished.id}`).set(bearer(alice)).send({ status: 'published' }).expect(200);
    const announced = await eventsAfter(republish);
    expect(announced.map((item) => [item.type, item.resource?.title])).toEqual([['POST_PUBLISHED', 'Unpublished secret']]);
    expect((await eventsAfter(start)).slice(0, before.length).filter((item) => item.postId === unpublished.id && item.resource !== undefined)).toEqual([]);
  });

  it('a comment set to spam or hidden (one or in bulk) loses its earlier public events\' text; approving it again announces it anew', async () => {
    const onPost = await post(alice, 'Moderated post');
    const start = await head();
    const spam = await comment(bob, onPost.id, 'Spammy remark');
    await request(app.server).patch(`/comments/${spam.id}`).set(bearer(bob)).send({ body: 'Spammy remark, edited' }).expect(200);
    const hidden = await comment(bob, onPost.id, 'Hidden remark');
    const bulk = await comment(bob, onPost.id, 'Bulk-hidden remark');
    const kept = await comment(bob, onPost.id, 'Kept remark');
    expect(await publicly(start, ['Spammy remark', 'Hidden remark', 'Bulk-hidden remark', 'Kept remark'])).toHaveLength(4);

    await request(app.server).patch(`/comments/${spam.id}`).set(bearer(admin)).send({ status: 'spam' }).expect(200);
    await request(app.server).patch(`/comments/${hidden.id}`).set(bearer(admin)).send({ status: 'hidden' }).expect(200);
    await request(app.server)
      .patch('/comments')
      .set(bearer(admin))
      .send([
        { id: bulk.id, status: 'hidden' },
        { id: kept.id, status: 'approved' },
      ])
      .expect(200);

    expect(await publicly(start, ['Spammy remark', 'Hidden remark', 'Bulk-hidden remark', 'Kept remark'])).toEqual(['Kept remark']);
    const after = await eventsAfter(start);
    for (const item of after.filter((event) => event.commentId !== kept.id)) expect(item.resource, `${item.type} of comment ${item.commentId}`).toBeUndefined();
    for (const replayed of await replays('anonymous', REPLAY, start, after.length)) {
      expect(replayed.filter((item: { commentId: number }) => item.commentId !== kept.id).map((item: { comment: unknown }) => item.comment)).toEqual(
        after.filter((item) => item.commentId !== kept.id).map(() => null),
      );
      expect(replayed.find((item: { commentId: number }) => item.commentId === kept.id).comment).toEqual({ body: 'Kept remark' });
    }
    // The post itself is untouched.
    expect((await eventsAfter(undefined)).find((item) => item.postId === onPost.id && item.type === 'POST_CREATED')?.resource).toMatchObject({ title: 'Moderated post' });

    const approval = await head();
    await request(app.server).patch(`/comments/${hidden.id}`).set(bearer(admin)).send({ status: 'approved' }).expect(200);
    expect((await eventsAfter(approval)).map((item) => [item.type, item.resource?.body])).toEqual([['COMMENT_CREATED', 'Hidden remark']]);
  });

  it("a replay resolves a snapshot's nested fields by the post as it is now, not as the snapshot says", async () => {
    // A snapshot that outlives the post's publicity: an event written before withdrawals stripped
    // them (or read by a replay just before the withdrawal committed), made here by putting its text back.
    const sql = app.app.get(Sql);
    const start = await head();
    const withdrawn = await post(alice, 'Soon a draft', ['soon-draft']);
    const public1 = await comment(bob, withdrawn.id, 'Public remark');
    const stored = await sql.rows<{ id: number | string; resource: string }>(statement`SELECT id, resource FROM events WHERE post_id = ${withdrawn.id} ORDER BY id`);
    await request(app.server).patch(`/posts/${withdrawn.id}`).set(bearer(alice)).send({ status: 'draft' }).expect(200);
    // Never public: written on the draft.
    await comment(admin, withdrawn.id, 'Editor note', public1.id);
    await comment(admin, withdrawn.id, 'Top-level editor note');
    for (const row of stored) await sql.rows(statement`UPDATE events SET resource = ${row.resource} WHERE id = ${row.id}`);

    const query =
      'subscription($after: String) { events(after: $after, types: [POST_CREATED, COMMENT_CREATED]) { type post { title commentCount comments { body } tags { slug } } comment { body replies { body } } } }';
    for (const replayed of await replays('anonymous', query, start, 2)) {
      expect(replayed.slice(0, 2)).toEqual([
        { type: 'POST_CREATED', post: { title: 'Soon a draft', commentCount: 0, comments: [], tags: [] }, comment: null },
        // A comment event's post is the post as it is now: none for this reader.
        { type: 'COMMENT_CREATED', post: null, comment: { body: 'Public remark', replies: [] } },
      ]);
    }
    // Whoever sees the post now sees what is under it.
    for (const replayed of await replays('admin', query, start, 2)) {
      const [created, commented] = replayed as [
        { post: { commentCount: number; comments: { body: string }[]; tags: { slug: string }[] } },
        { comment: { replies: { body: string }[] } },
      ];
      expect(created.post.commentCount).toBe(3);
      expect(created.post.comments.map((item) => item.body)).toEqual(['Public remark', 'Editor note', 'Top-level editor note']);
      expect(created.post.tags).toEqual([{ slug: 'soon-draft' }]);
      expect(commented.comment.replies).toEqual([{ body: 'Editor note' }]);
    }
  });

  it('the migration withdraws what was written before withdrawals: events of posts out of view and of spam, hidden and pending comments', async () => {
    const sql = app.app.get(Sql);
    const start = await head();
    const drafted = await post(alice, 'Legacy draft');
    const onDraft = await comment(bob, drafted.id, 'Legacy remark on the draft');
    const shown = await post(alice, 'Legacy shown');
    const spam = await comment(bob, shown.id, 'Legacy spam');
    const pending = await comment(bob, shown.id, 'Legacy pending');
    const kept = await comment(bob, shown.id, 'Legacy kept');
    const texts = ['Legacy draft', 'Legacy remark on the draft', 'Legacy shown', 'Legacy spam', 'Legacy pending', 'Legacy kept'];
    await caughtUp();
    const stored = await sql.rows<{ id: number | string; resource: string }>(
      statement`SELECT id, resource FROM events WHERE resource IS NOT NULL AND (post_id IN (${statement.in([drafted.id, shown.id])}) OR comment_id IN (${statement.in([onDraft.id, spam.id, pending.id, kept.id])}))`,
    );
    await request(app.server).patch(`/posts/${drafted.id}`).set(bearer(alice)).send({ status: 'draft' }).expect(200);
    await request(app.server)
      .patch('/comments')
      .set(bearer(admin))
      .send([
        { id: spam.id, status: 'spam' },
        { id: pending.id, status: 'pending' },
      ])
      .expect(200);
    // As a release before withdrawals left them.
    for (const row of stored) await sql.rows(statement`UPDATE events SET resource = ${row.resource} WHERE id = ${row.id}`);
    expect(await publicly(start, texts)).toEqual(texts);

    const migration = MIGRATIONS.find((candidate) => candidate.name === 'WithdrawnContent1765400000000')!;
    const runner = app.app.get<DataSource>(getDataSourceToken()).createQueryRunner();
    try {
      await new migration().up(runner);
    } finally {
      await runner.release();
    }
    expect(await publicly(start, texts)).toEqual(['Legacy shown', 'Legacy kept']);
    // The draft's own events stay its author's.
    const alices = await eventsAfter(start, alice);
    expect(alices.some((item) => item.postId === drafted.id && item.type === 'POST_UPDATED' && item.resource?.title === 'Legacy draft')).toBe(true);
  });
});
