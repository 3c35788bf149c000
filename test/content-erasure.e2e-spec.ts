import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import request from 'supertest';
import { beforeAll, expect, it } from 'vitest';
import { Sql } from '../src/common/persistence/sql.js';
import { sql as statement } from '../src/common/persistence/sql-template.js';
import { TransactionRunner } from '../src/common/persistence/transaction-runner.js';
import { EventPublisher } from '../src/events/event-publisher.js';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { bearer, tokenFor } from './support/auth.js';
import { type ListeningApp, listen, LiveSubscription, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Privacy (CONTRACT §7): deleting a comment, a post or a user erases the content of their earlier
 * events — in GET /events, in an events(after:) replay, in webhook bodies not yet sent — in the
 * deletion's transaction; the events keep their type, ids and time.
 */

interface EventItem {
  cursor: string;
  type: string;
  occurredAt: string;
  postId?: number;
  commentId?: number;
  authorId: number;
  resource?: Record<string, unknown>;
}

interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
}

describeEachDatabase('content erasure: deleted content leaves the event log and webhook bodies', (kind) => {
  const app = useApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '3600000' } });
  let urls: ListeningApp;

  const post = async (token: string, title: string) =>
    (await request(app.server).post('/posts').set(bearer(token)).send({ title, body: `${title}, the body` }).expect(201)).body as { id: number };
  const comment = async (token: string, postId: number, body: string) =>
    (await request(app.server).post(`/posts/${postId}/comments`).set(bearer(token)).send({ body }).expect(201)).body as { id: number };

  /** Every event after `after`, as an admin reads them (every audience). */
  async function eventsAfter(after: string | undefined): Promise<EventItem[]> {
    const response = await request(app.server).get(`/events?limit=100${after ? `&after=${after}` : ''}`).set(bearer(app.tokens.admin)).expect(200);
    return response.body as EventItem[];
  }
  const head = async () => {
    let after: string | undefined;
    for (;;) {
      const page = await eventsAfter(after);
      if (page.length < 100) return page.at(-1)?.cursor ?? after;
      after = page.at(-1)!.cursor;
    }
  };
  /** What of `texts` the log after `after` still holds, in any format. */
  async function leftIn(after: string | undefined, texts: string[]): Promise<string[]> {
    const query = `/events?limit=100${after ? `&after=${after}` : ''}`;
    const formats = await Promise.all(['application/json', 'application/xml', 'application/hal+json', 'text/html'].map((accept) => request(app.server).get(query).set('Accept', accept).expect(200)));
    return texts.filter((text) => formats.some((response) => response.text.includes(text)));
  }

  beforeAll(async () => {
    urls = await listen(app);
    await post(app.tokens.bob, 'First');
  });

  it('deleting a comment erases its earlier events; type, ids and time stay; the rest is untouched', async () => {
    const start = await head();
    const onPost = await post(app.tokens.alice, 'Kept post');
    const remark = await comment(app.tokens.bob, onPost.id, 'Regrettable remark');
    await request(app.server).patch(`/comments/${remark.id}`).set(bearer(app.tokens.bob)).send({ body: 'Regrettable remark, edited' }).expect(200);
    const kept = await comment(app.tokens.bob, onPost.id, 'Kept remark');
    const before = await eventsAfter(start);
    await request(app.server).delete(`/comments/${remark.id}`).set(bearer(app.tokens.bob)).expect(204);

    const after = await eventsAfter(start);
    expect(after.slice(0, before.length).map(({ cursor, type, occurredAt, postId, commentId, authorId }) => ({ cursor, type, occurredAt, postId, commentId, authorId }))).toEqual(
      before.map(({ cursor, type, occurredAt, postId, commentId, authorId }) => ({ cursor, type, occurredAt, postId, commentId, authorId })),
    );
    const ofRemark = after.filter((item) => item.commentId === remark.id);
    expect(ofRemark.map((item) => item.type)).toEqual(['COMMENT_CREATED', 'COMMENT_UPDATED', 'COMMENT_DELETED']);
    for (const item of ofRemark) expect(item.resource).toBeUndefined();
    expect(await leftIn(start, ['Regrettable remark', 'Kept remark', 'Kept post'])).toEqual(['Kept remark', 'Kept post']);
    expect(after.find((item) => item.commentId === kept.id)?.resource).toMatchObject({ body: 'Kept remark' });

    // The replay says the same.
    const ws = wsClient(urls.ws, { token: app.tokens.admin });
    await ws.connected;
    const replay = new LiveSubscription(ws.client, 'subscription($after: String) { events(after: $after) { type commentId comment { body } } }', { after: start });
    try {
      const replayed = await replay.received(after.length);
      expect(replayed.filter((item: { commentId: number | null }) => item.commentId === remark.id).map((item: { comment: unknown }) => item.comment)).toEqual([null, null, null]);
    } finally {
      replay.dispose();
      await ws.dispose();
    }
  });

  it('deleting a post erases its events and its comments\'; a deletion that rolls back erases nothing', async () => {
    const start = await head();
    const doomed = await post(app.tokens.alice, 'Doomed post');
    await comment(app.tokens.bob, doomed.id, 'Doomed comment');

    // Erased in a transaction that then fails: nothing changes.
    const publisher = app.app.get(EventPublisher);
    await expect(
      app.app.get(TransactionRunner).run(async (manager) => {
        await publisher.eraseContent(manager, { postId: [doomed.id] });
        throw new Error('the deletion failed');
      }),
    ).rejects.toThrow('the deletion failed');
    expect(await leftIn(start, ['Doomed post', 'Doomed comment'])).toEqual(['Doomed post', 'Doomed comment']);

    // The first DELETE moves it to the trash: its content leaves the public log (CONTRACT §18) but
    // stays in its author's events; the second deletes it for good, and every event's content with it.
    const authors = async () => JSON.stringify((await request(app.server).get(`/events?limit=100&after=${start}`).set(bearer(app.tokens.alice)).expect(200)).body);
    await request(app.server).delete(`/posts/${doomed.id}`).set(bearer(app.tokens.alice)).expect(204);
    expect(await leftIn(start, ['Doomed post', 'Doomed comment'])).toEqual([]);
    await until("the trashed post in its author's events", async () => (await authors()).includes('Doomed post'));
    await request(app.server).delete(`/posts/${doomed.id}`).set(bearer(app.tokens.alice)).expect(204);
    expect(await leftIn(start, ['Doomed post', 'Doomed comment'])).toEqual([]);
    expect(await authors()).not.toContain('Doomed post');
    expect((await eventsAfter(start)).map((item) => item.type)).toEqual(['POST_CREATED', 'COMMENT_CREATED', 'POST_UPDATED', 'POST_UNPUBLISHED', 'COMMENT_DELETED', 'POST_DELETED']);
  });

  it('deleting a user erases their posts, their comments and the comments on their posts, and nobody else\'s', async () => {
    const start = await head();
    const signUp = await request(app.server).post('/users').send({ name: 'Leaving', email: `leaving-${kind}@example.com`, password: 'leaving-password' }).expect(201);
    const leaving = await tokenFor(app, { email: `leaving-${kind}@example.com`, password: 'leaving-password' });
    const theirs = await post(leaving, 'Leaving post');
    await comment(app.tokens.alice, theirs.id, 'Alice on the leaving post');
    const alicesPost = await post(app.tokens.alice, 'Alice stays');
    await comment(leaving, alicesPost.id, 'Leaving remark');
    await comment(app.tokens.bob, alicesPost.id, 'Bob stays');

    await request(app.server).delete(`/users/${signUp.body.id as number}`).set(bearer(app.tokens.admin)).expect(204);
    expect(await leftIn(start, ['Leaving post', 'Alice on the leaving post', 'Leaving remark', 'Alice stays', 'Bob stays'])).toEqual(['Alice stays', 'Bob stays']);
  });

  it('a webhook body not yet sent goes without the deleted content, still signed', async () => {
    const receipts: Receipt[] = [];
    let answer = 500;
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receipts.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const webhook = (await request(app.server).post('/webhooks').set(bearer(app.tokens.admin)).send({ url, types: ['COMMENT_CREATED'] }).expect(201)).body as { id: number; secret: string };
      const onPost = await post(app.tokens.alice, 'Webhook post');
      const remark = await comment(app.tokens.bob, onPost.id, 'Webhook secret remark');

      // The first attempt fails: the delivery waits, pending, for its retry an hour later.
      await until('a failed attempt recorded', async () => {
        const attempts = (await request(app.server).get(`/webhooks/${webhook.id}/deliveries`).set(bearer(app.tokens.admin)).expect(200)).body as { status: string }[];
        return attempts.some((attempt) => attempt.status === 'retrying');
      });
      expect(receipts).toHaveLength(1);
      expect(receipts[0].body).toContain('Webhook secret remark');

      await request(app.server).delete(`/comments/${remark.id}`).set(bearer(app.tokens.bob)).expect(204);
      // The retry falls due now.
      const sql = app.app.get(Sql);
      await sql.rows(statement`UPDATE webhook_deliveries SET next_attempt_at = ${sql.timestamp(new Date())}`);
      answer = 204;
      app.app.get(WebhookDispatcher).wakeSender();
      await until('the delivery sent again', () => receipts.length >= 2);
      const retry = receipts.at(-1)!;
      expect(retry.headers['webhook-id']).toBe(receipts[0].headers['webhook-id']);
      const verified = new Verifier(webhook.secret).verify(retry.body, {
        'webhook-id': retry.headers['webhook-id'] as string,
        'webhook-timestamp': retry.headers['webhook-timestamp'] as string,
        'webhook-signature': retry.headers['webhook-signature'] as string,
      }) as { type: string; data: Record<string, unknown> };
      expect(verified.type).toBe('COMMENT_CREATED');
      expect(verified.data).toEqual({ cursor: expect.any(String), type: 'COMMENT_CREATED', occurredAt: expect.any(String), postId: onPost.id, commentId: remark.id, authorId: 3 });
      expect(retry.body).not.toContain('Webhook secret remark');
      await request(app.server).delete(`/webhooks/${webhook.id}`).set(bearer(app.tokens.admin)).expect(204);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
