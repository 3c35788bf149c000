import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook as Verifier } from 'standardwebhooks';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase } from './support/databases.js';
import { until } from './support/subscriptions.js';
import { Sql } from '../src/common/persistence/sql.js';
import { sql as statement } from '../src/common/persistence/sql-template.js';
import { WebhookDeliveriesRepository } from '../src/webhooks/webhook-deliveries.repository.js';
import { WebhookRetention } from '../src/webhooks/webhook-retention.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Webhooks: admin-only CRUD, and delivery to a real HTTP receiver on 127.0.0.1 (so private
 * addresses are allowed, but in the app that checks they are refused): signed per Standard
 * Webhooks, retried with the same webhook-id, never following redirects, surviving a restart,
 * and sent once when two instances share the database.
 */
const FAST = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_MAX_ATTEMPTS: '3' };

interface Receipt {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

type Answer = number | 'hang' | { redirect: string };

/** A webhook receiver: records every request and answers as `answer` says (a status, never, or a redirect). */
class Receiver {
  readonly receipts: Receipt[] = [];
  answer: (receipt: Receipt, index: number) => Answer = () => 204;
  private server?: Server;
  private readonly hanging = new Set<import('node:http').ServerResponse>();
  port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const receipt = { path: req.url ?? '', method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        this.receipts.push(receipt);
        const answer = this.answer(receipt, this.receipts.length - 1);
        if (answer === 'hang') {
          this.hanging.add(res);
          return;
        }
        if (typeof answer === 'object') {
          res.writeHead(302, { location: answer.redirect }).end();
          return;
        }
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Receipt[] {
    return this.receipts.filter((receipt) => receipt.path === path);
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }
}

interface Attempt {
  eventCursor: string;
  attempt: number;
  status: 'delivered' | 'retrying' | 'failed';
  durationMs: number;
  error: string | null;
  at: string;
  nextAttemptAt: string | null;
}

const verify = (secret: string, receipt: Receipt) =>
  new Verifier(secret).verify(receipt.body, {
    'webhook-id': receipt.headers['webhook-id'] as string,
    'webhook-timestamp': receipt.headers['webhook-timestamp'] as string,
    'webhook-signature': receipt.headers['webhook-signature'] as string,
  });

describeEachDatabase('webhooks', (kind) => {
  let app: TestApp;
  let admin: string;
  let alice: string;
  const receivers: Receiver[] = [];
  const created: number[] = [];

  const receiver = async () => {
    const started = await new Receiver().start();
    receivers.push(started);
    return started;
  };

  async function createWebhook(target: TestApp, token: string, body: object): Promise<{ id: number; secret: string }> {
    const response = await request(target.server).post('/webhooks').set(bearer(token)).send(body).expect(201);
    if (target === app) created.push(response.body.id as number);
    return response.body as { id: number; secret: string };
  }

  const attempts = async (target: TestApp, token: string, id: number) =>
    (await request(target.server).get(`/webhooks/${id}/deliveries`).set(bearer(token)).expect(200)).body as Attempt[];

  const writePost = async (target: TestApp, token: string, title: string) =>
    (await request(target.server).post('/posts').set(bearer(token)).send({ title, body: 'Sent to webhooks' }).expect(201)).body as { id: number };

  beforeAll(async () => {
    app = await startTestApp(kind, { env: FAST });
    admin = await tokenFor(app, ADMIN);
    alice = await tokenFor(app, ALICE);
  });
  afterEach(async () => {
    // Each test's webhooks go with it, so that no other test's writes are sent to them.
    for (const id of created.splice(0)) await request(app.server).delete(`/webhooks/${id}`).set(bearer(admin));
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all(receivers.map((started) => started.stop()));
  });

  it('admins only: create (201, Location, the secret once), list, get, change, delete, and their errors', async () => {
    const body = { url: 'https://hooks.example.com/blog', types: ['POST_CREATED', 'COMMENT_CREATED'], description: 'CI' };
    await request(app.server).post('/webhooks').send(body).expect(401);
    await request(app.server).post('/webhooks').set(bearer(alice)).send(body).expect(403);
    await request(app.server).get('/webhooks').expect(401);
    await request(app.server).get('/webhooks').set(bearer(alice)).expect(403);

    // hooks.example.com does not resolve here; the discard port of this machine is never answered.
    const response = await request(app.server)
      .post('/webhooks')
      .set(bearer(admin))
      .send({ ...body, url: 'http://127.0.0.1:9/blog' })
      .expect(201);
    created.push(response.body.id as number);
    const id = response.body.id as number;
    expect(response.headers.location).toBe(`/webhooks/${id}`);
    expect(response.body).toEqual({
      id,
      url: 'http://127.0.0.1:9/blog',
      types: ['POST_CREATED', 'COMMENT_CREATED'],
      description: 'CI',
      active: true,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    const key = Buffer.from((response.body.secret as string).slice('whsec_'.length), 'base64');
    expect(key.length).toBeGreaterThanOrEqual(24);
    expect(key.length).toBeLessThanOrEqual(32);

    const one = await request(app.server).get(`/webhooks/${id}`).set(bearer(admin)).expect(200);
    expect(one.body).toEqual({ ...response.body, secret: undefined });
    expect(JSON.stringify(one.body)).not.toContain('whsec_');
    const list = await request(app.server).get('/webhooks').set(bearer(admin)).expect(200);
    expect(list.body).toEqual([one.body]);
    expect(list.headers['cache-status']).toBeUndefined();
    await request(app.server).get(`/webhooks/${id}`).set(bearer(alice)).expect(403);
    await request(app.server).get(`/webhooks/${id}`).expect(401);
    await request(app.server).get('/webhooks/999999').set(bearer(admin)).expect(404);
    await request(app.server).get('/webhooks/999999/deliveries').set(bearer(admin)).expect(404);
    await request(app.server).get(`/webhooks/${id}/deliveries`).set(bearer(alice)).expect(403);
    expect((await request(app.server).get(`/webhooks/${id}/deliveries`).set(bearer(admin)).expect(200)).body).toEqual([]);

    for (const bad of [
      { ...body, types: ['POST_PUBLISHED'] },
      { ...body, types: [] },
      { ...body, types: 'POST_CREATED' },
      { ...body, url: 'ftp://127.0.0.1:9/x' },
      { ...body, url: `http://127.0.0.1:9/${'x'.repeat(2048)}` },
      { types: ['POST_CREATED'] },
      { ...body, secret: 'mine' },
    ]) {
      const refused = await request(app.server).post('/webhooks').set(bearer(admin)).send(bad);
      expect(refused.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    }

    const changed = await request(app.server)
      .patch(`/webhooks/${id}`)
      .set(bearer(admin))
      .send({ types: ['POST_DELETED'], description: null, active: false })
      .expect(200);
    expect(changed.body).toMatchObject({ id, types: ['POST_DELETED'], description: null, active: false });
    expect(changed.body.secret).toBeUndefined();
    expect((await request(app.server).get(`/webhooks/${id}`).set(bearer(admin)).expect(200)).body).toEqual(changed.body);
    await request(app.server).patch(`/webhooks/${id}`).set(bearer(admin)).send({ types: ['NOPE'] }).expect(400);
    await request(app.server).patch(`/webhooks/${id}`).set(bearer(admin)).send({ active: 'yes' }).expect(400);
    await request(app.server).patch(`/webhooks/${id}`).set(bearer(alice)).send({ active: true }).expect(403);
    await request(app.server).patch('/webhooks/999999').set(bearer(admin)).send({ active: true }).expect(404);

    await request(app.server).delete(`/webhooks/${id}`).set(bearer(alice)).expect(403);
    await request(app.server).delete(`/webhooks/${id}`).set(bearer(admin)).expect(204);
    await request(app.server).get(`/webhooks/${id}`).set(bearer(admin)).expect(404);
    await request(app.server).delete(`/webhooks/${id}`).set(bearer(admin)).expect(404);
  });

  it("an admin's read API key gets 403 INSUFFICIENT_SCOPE on every webhook operation, reads included; a write key is let in", async () => {
    const fresh = await tokenFor(app, ADMIN);
    const adminId = ((await request(app.server).get('/users?limit=100').expect(200)).body as { id: number; email: string }[]).find((user) => user.email === ADMIN.email)!.id;
    const keyWith = async (scopes: string[]) =>
      (await request(app.server).post(`/users/${adminId}/api-keys`).set(bearer(fresh)).send({ name: `Webhooks ${scopes.join('+')}`, scopes }).expect(201)).body.key as string;
    const reader = await keyWith(['read']);
    const writer = await keyWith(['read', 'write']);
    const { id } = await createWebhook(app, writer, { url: 'http://127.0.0.1:9/scopes', types: ['POST_CREATED'] });
    const insufficient = async (response: Promise<import('supertest').Response>) => {
      const answer = await response;
      expect(answer.status, `${answer.request.method} ${answer.request.url}`).toBe(403);
      expect(answer.body.code).toBe('INSUFFICIENT_SCOPE');
    };
    await insufficient(request(app.server).get('/webhooks').set(bearer(reader)));
    await insufficient(request(app.server).get(`/webhooks/${id}`).set(bearer(reader)));
    await insufficient(request(app.server).get(`/webhooks/${id}/deliveries`).set(bearer(reader)));
    await insufficient(request(app.server).post('/webhooks').set(bearer(reader)).send({ url: 'http://127.0.0.1:9/x', types: ['POST_CREATED'] }));
    await insufficient(request(app.server).patch(`/webhooks/${id}`).set(bearer(reader)).send({ active: false }));
    await insufficient(request(app.server).delete(`/webhooks/${id}`).set(bearer(reader)));
    expect((await request(app.server).get('/webhooks').set(bearer(writer)).expect(200)).body.map((hook: { id: number }) => hook.id)).toContain(id);
    await request(app.server).get(`/webhooks/${id}`).set(bearer(writer)).expect(200);
    await request(app.server).get(`/webhooks/${id}/deliveries`).set(bearer(writer)).expect(200);
  });

  it('a matching event is POSTed with a valid Standard Webhooks signature; other types are not sent', async () => {
    const posts = await receiver();
    const comments = await receiver();
    const postHook = await createWebhook(app, admin, { url: posts.url(), types: ['POST_CREATED'] });
    const commentHook = await createWebhook(app, admin, { url: comments.url(), types: ['COMMENT_CREATED'] });

    const post = await writePost(app, alice, 'Hooked');
    const [receipt] = await until('the POST_CREATED delivery', () => posts.receipts.length > 0 && posts.receipts);
    expect(receipt.method).toBe('POST');
    expect(receipt.headers['content-type']).toBe('application/json');
    expect(receipt.headers['webhook-id']).toMatch(/^msg_/);
    expect(receipt.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(receipt.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verify(postHook.secret, receipt)).toBeTruthy();
    expect(() => verify(commentHook.secret, receipt)).toThrow();
    expect(() => verify(postHook.secret, { ...receipt, body: receipt.body.replace('Hooked', 'Forged') })).toThrow();

    const payload = JSON.parse(receipt.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(payload.type).toBe('POST_CREATED');
    expect(payload.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(payload.data).toMatchObject({
      cursor: expect.any(String),
      type: 'POST_CREATED',
      occurredAt: payload.timestamp,
      postId: post.id,
      authorId: expect.any(Number),
      resource: { id: post.id, title: 'Hooked', _links: { self: { href: `/posts/${post.id}` } } },
    });
    expect(payload.data).not.toHaveProperty('commentId');

    // Neither webhook wants POST_UPDATED; the comment's webhook gets the comment, after it in the log.
    await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'Changed' }).expect(200);
    await request(app.server).post(`/posts/${post.id}/comments`).set(bearer(alice)).send({ body: 'Hooked too' }).expect(201);
    const [commentReceipt] = await until('the COMMENT_CREATED delivery', () => comments.receipts.length > 0 && comments.receipts);
    expect(verify(commentHook.secret, commentReceipt)).toMatchObject({ type: 'COMMENT_CREATED', data: { postId: post.id, commentId: expect.any(Number) } });
    // The feeder had queued everything up to the comment by then: nothing else was queued for either.
    const queued = await app.app.get(DataSource).query('SELECT webhook_id FROM webhook_deliveries ORDER BY id');
    expect(queued.map((row: { webhook_id: number }) => Number(row.webhook_id))).toEqual([postHook.id, commentHook.id]);
    expect(posts.receipts).toHaveLength(1);
    const listed = await until('the attempt recorded', async () => {
      const found = await attempts(app, admin, postHook.id);
      return found.length > 0 && found;
    });
    expect(listed).toEqual([
      { eventCursor: payload.data.cursor, attempt: 1, status: 'delivered', durationMs: expect.any(Number), error: null, at: expect.any(String), nextAttemptAt: null },
    ]);
  });

  it('a receiver that fails twice then answers gets three attempts with the same webhook-id, after growing delays, as listed', async () => {
    const flaky = await receiver();
    flaky.answer = (_, index) => (index < 2 ? 500 : 200);
    const hook = await createWebhook(app, admin, { url: flaky.url(), types: ['POST_CREATED'] });
    await writePost(app, alice, 'Flaky');
    await until('three attempts', () => flaky.receipts.length >= 3);
    const listed = await until('the third attempt recorded', async () => {
      const found = await attempts(app, admin, hook.id);
      return found.length >= 3 && found;
    });

    expect(new Set(flaky.receipts.map((receipt) => receipt.headers['webhook-id'])).size).toBe(1);
    for (const receipt of flaky.receipts) expect(verify(hook.secret, receipt)).toMatchObject({ type: 'POST_CREATED' });
    expect(listed.map((attempt) => [attempt.attempt, attempt.status, attempt.error])).toEqual([
      [3, 'delivered', null],
      [2, 'retrying', 'HTTP 500'],
      [1, 'retrying', 'HTTP 500'],
    ]);
    expect(new Set(listed.map((attempt) => attempt.eventCursor)).size).toBe(1);
    const [third, second, first] = listed;
    expect(third.nextAttemptAt).toBeNull();
    const delay = (attempt: Attempt) => Date.parse(attempt.nextAttemptAt!) - Date.parse(attempt.at);
    // 50 ms, then 100 ms, each lengthened by at most a fifth.
    expect(delay(first)).toBeGreaterThanOrEqual(50);
    expect(delay(first)).toBeLessThanOrEqual(60);
    expect(delay(second)).toBeGreaterThanOrEqual(100);
    expect(delay(second)).toBeLessThanOrEqual(120);
    // No retry came before it was due.
    expect(flaky.receipts[1].at).toBeGreaterThanOrEqual(Date.parse(first.nextAttemptAt!));
    expect(flaky.receipts[2].at).toBeGreaterThanOrEqual(Date.parse(second.nextAttemptAt!));
  });

  it('a receiver that never answers times out, and the event is sent again', async () => {
    const silent = await receiver();
    silent.answer = (_, index) => (index === 0 ? 'hang' : 204);
    const hook = await createWebhook(app, admin, { url: silent.url(), types: ['POST_CREATED'] });
    await writePost(app, alice, 'Silent');
    const listed = await until('the retry delivered', async () => {
      const found = await attempts(app, admin, hook.id);
      return found[0]?.status === 'delivered' && found;
    });
    expect(listed.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
      [2, 'delivered'],
      [1, 'retrying'],
    ]);
    expect(listed[1].error).toBe('No answer within 500 ms');
    expect(silent.receipts).toHaveLength(2);
    expect(silent.receipts[0].headers['webhook-id']).toBe(silent.receipts[1].headers['webhook-id']);
  });

  it('a redirect is not followed: each 3xx is a failed attempt, and the delivery is given up after WEBHOOK_MAX_ATTEMPTS', async () => {
    const redirecting = await receiver();
    redirecting.answer = (receipt) => (receipt.path === '/hook' ? { redirect: redirecting.url('/elsewhere') } : 204);
    const hook = await createWebhook(app, admin, { url: redirecting.url(), types: ['POST_CREATED'] });
    await writePost(app, alice, 'Redirected');
    const listed = await until('the delivery given up', async () => {
      const found = await attempts(app, admin, hook.id);
      return found[0]?.status === 'failed' && found;
    });
    expect(listed.map((attempt) => [attempt.attempt, attempt.status, attempt.error])).toEqual([
      [3, 'failed', 'HTTP 302: redirects are not followed'],
      [2, 'retrying', 'HTTP 302: redirects are not followed'],
      [1, 'retrying', 'HTTP 302: redirects are not followed'],
    ]);
    expect(redirecting.on('/hook')).toHaveLength(3);
    expect(redirecting.on('/elsewhere')).toHaveLength(0);
    const metrics = await request(app.server).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^webhook_deliveries_total\{status="failed"\} [1-9]/m);
    expect(metrics.text).toMatch(/^webhook_deliveries_total\{status="retrying"\} [1-9]/m);
    expect(metrics.text).toMatch(/^webhook_deliveries_total\{status="delivered"\} \d/m);
    expect(metrics.text).toMatch(/^webhook_queue_depth \d+/m);
  });

  it('only events recorded after the webhook was created, and not while it was inactive, are sent', async () => {
    const late = await receiver();
    await writePost(app, alice, 'Before the webhook');
    const hook = await createWebhook(app, admin, { url: late.url(), types: ['POST_CREATED'] });
    await writePost(app, alice, 'After the webhook');
    await until('the delivery', () => late.receipts.length > 0);
    await request(app.server).patch(`/webhooks/${hook.id}`).set(bearer(admin)).send({ active: false }).expect(200);
    await writePost(app, alice, 'While inactive');
    await request(app.server).patch(`/webhooks/${hook.id}`).set(bearer(admin)).send({ active: true }).expect(200);
    await writePost(app, alice, 'Active again');
    await until('the second delivery', () => late.receipts.length > 1);
    const queued = await app.app.get(DataSource).query(`SELECT COUNT(*) AS count FROM webhook_deliveries WHERE webhook_id = ${hook.id}`);
    expect(Number(queued[0].count)).toBe(2);
    expect(late.receipts.map((receipt) => (JSON.parse(receipt.body) as { data: { resource: { title: string } } }).data.resource.title).sort()).toEqual([
      'Active again',
      'After the webhook',
    ]);
  });

  it('retention: deliveries (and their attempts) that ended more than EVENTS_RETENTION_DAYS ago are pruned; pending ones and recent ones stay', async () => {
    const good = await receiver();
    const bad = await receiver();
    bad.answer = () => 500;
    const delivered = await createWebhook(app, admin, { url: good.url('/kept'), types: ['POST_CREATED'] });
    const failing = await createWebhook(app, admin, { url: bad.url('/refusing'), types: ['POST_CREATED'] });
    await writePost(app, alice, 'To be pruned');
    await until('a delivery and a failure', async () => {
      const [ok, failed] = [await attempts(app, admin, delivered.id), await attempts(app, admin, failing.id)];
      return ok[0]?.status === 'delivered' && failed[0]?.status === 'failed';
    });
    await request(app.server).patch(`/webhooks/${failing.id}`).set(bearer(admin)).send({ active: false }).expect(200);
    await writePost(app, alice, 'Still retrying');
    await writePost(app, alice, 'Recent');
    await until('three deliveries', async () => (await attempts(app, admin, delivered.id)).filter((attempt) => attempt.status === 'delivered').length === 3);

    const sql = app.app.get(Sql);
    const deliveries = async (webhookId: number) =>
      sql.rows<{ id: number | string; status: string }>(statement`SELECT id, status FROM webhook_deliveries WHERE webhook_id = ${webhookId} ORDER BY id`);
    const attemptCount = async (webhookId: number) =>
      Number((await sql.rows<{ count: number | string }>(statement`SELECT COUNT(*) AS count FROM webhook_attempts WHERE webhook_id = ${webhookId}`))[0].count);
    const [first, retrying, recent] = await deliveries(delivered.id);
    const [gaveUp] = await deliveries(failing.id);
    expect(gaveUp.status).toBe('failed');
    expect(await attemptCount(failing.id)).toBe(3);

    // Everything but `recent` happened long ago; `retrying` is still due for another attempt, an hour from now.
    const longAgo = sql.timestamp(new Date(Date.now() - (app.config.eventsRetentionDays + 1) * 86_400_000));
    const inAnHour = sql.timestamp(new Date(Date.now() + 3_600_000));
    const old = [first.id, retrying.id, gaveUp.id].map(Number);
    await sql.rows(statement`UPDATE webhook_deliveries SET created_at = ${longAgo}, next_attempt_at = ${longAgo} WHERE id IN (${statement.in(old)})`);
    await sql.rows(statement`UPDATE webhook_attempts SET at = ${longAgo} WHERE delivery_id IN (${statement.in(old)})`);
    await sql.rows(statement`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${inAnHour} WHERE id = ${Number(retrying.id)}`);

    expect(await app.app.get(WebhookRetention).prune()).toBe(2);
    expect((await deliveries(delivered.id)).map((row) => Number(row.id))).toEqual([Number(retrying.id), Number(recent.id)]);
    expect(await deliveries(failing.id)).toEqual([]);
    expect(await attemptCount(failing.id)).toBe(0);
    const listed = await attempts(app, admin, delivered.id);
    expect(listed.map((attempt) => attempt.eventCursor)).toHaveLength(2);
    expect(await attempts(app, admin, failing.id)).toEqual([]);
    expect(await app.app.get(WebhookRetention).prune()).toBe(0);
    // A clock past the retention of `recent` too: it goes, the pending one still stays.
    const later = new Date(Date.now() + (app.config.eventsRetentionDays + 1) * 86_400_000);
    expect(await app.app.get(WebhookRetention).prune(later)).toBe(1);
    expect((await deliveries(delivered.id)).map((row) => Number(row.id))).toEqual([Number(retrying.id)]);
  });

  it('without WEBHOOK_ALLOW_PRIVATE: loopback, private and link-local URLs are refused (400), at creation, change and sending', async () => {
    const strict = await startTestApp(kind, { env: { ...FAST, WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const token = await tokenFor(strict, ADMIN);
      const target = await receiver();
      for (const url of [target.url(), 'http://localhost:8080/x', 'http://[::1]/x', 'http://10.0.0.8/x', 'http://172.20.1.1/x', 'http://192.168.1.10/x', 'http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/x', 'http://[::ffff:127.0.0.1]/x', 'http://0.0.0.0/x']) {
        const refused = await request(strict.server).post('/webhooks').set(bearer(token)).send({ url, types: ['POST_CREATED'] });
        expect(refused.status, url).toBe(400);
        expect(refused.body.detail ?? refused.body.title, url).toBeDefined();
      }
      const hook = await createWebhook(strict, token, { url: 'http://192.0.2.1/x', types: ['POST_CREATED'] });
      await request(strict.server).patch(`/webhooks/${hook.id}`).set(bearer(token)).send({ url: target.url() }).expect(400);
      // Checked again when sending: a URL that became private (here written behind the API's back) is not called.
      await strict.app.get(DataSource).query(`UPDATE webhooks SET url = '${target.url()}' WHERE id = ${hook.id}`);
      await writePost(strict, await tokenFor(strict, ALICE), 'Not to localhost');
      const listed = await until('an attempt', async () => {
        const found = await attempts(strict, token, hook.id);
        return found.length > 0 && found;
      });
      expect(listed[0].error).toMatch(/127\.0\.0\.1.*non-public/);
      expect(target.receipts).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });

  it('without WEBHOOK_ALLOW_PRIVATE: IPv6 forms that carry a private IPv4 address (IPv4-compatible, -translated, NAT64, 6to4, Teredo) are refused (400) at creation and change; public IPv6 is accepted', async () => {
    const strict = await startTestApp(kind, { env: { ...FAST, WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const token = await tokenFor(strict, ADMIN);
      const hook = await createWebhook(strict, token, { url: 'http://[2606:4700:4700::1111]/x', types: ['POST_CREATED'] });
      await request(strict.server).patch(`/webhooks/${hook.id}`).set(bearer(token)).send({ url: 'https://[64:ff9b::8.8.8.8]/y' }).expect(200);
      const carriers = [
        '[::127.0.0.1]',
        '[::ffff:0:127.0.0.1]',
        '[64:ff9b::127.0.0.1]',
        '[2002:7f00:1::]',
        '[::10.1.2.3]',
        '[64:ff9b::192.168.1.1]',
        '[2002:a00:1::1]', // 6to4 of 10.0.0.1
        '[2002:c0a8:101::1]', // 6to4 of 192.168.1.1
        '[2002:a9fe:a9fe::1]', // 6to4 of 169.254.169.254
        '[2001:0:4136:e378:8000:63bf:f5ff:fffe]', // Teredo, client 10.0.0.1
        '[2001:0:4136:e378:8000:63bf:3f57:fefe]', // Teredo, client 192.168.1.1
        '[2001:0:4136:e378:8000:63bf:5601:5601]', // Teredo, client 169.254.169.254
      ];
      for (const host of carriers) {
        const url = `http://${host}/x`;
        const created = await request(strict.server).post('/webhooks').set(bearer(token)).send({ url, types: ['POST_CREATED'] });
        expect(created.status, `POST ${url}`).toBe(400);
        expect(created.body.detail, url).toMatch(/non-public/);
        const changed = await request(strict.server).patch(`/webhooks/${hook.id}`).set(bearer(token)).send({ url });
        expect(changed.status, `PATCH ${url}`).toBe(400);
      }
      const kept = await request(strict.server).get(`/webhooks/${hook.id}`).set(bearer(token)).expect(200);
      expect(kept.body.url).toBe('https://[64:ff9b::8.8.8.8]/y');
    } finally {
      await strict.close();
    }
  });

  it('a receiver that is down across a restart of the app still gets the event', async () => {
    const database = await createTestDatabase(kind, { file: true });
    const env = { ...FAST, WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_MAX_ATTEMPTS: '20' };
    const down = await receiver();
    const port = down.port;
    await down.stop();
    let first: TestApp | undefined = await startTestApp(kind, { database, env });
    let second: TestApp | undefined;
    try {
      const token = await tokenFor(first, ADMIN);
      const hook = await createWebhook(first, token, { url: `http://127.0.0.1:${port}/hook`, types: ['POST_CREATED'] });
      await writePost(first, await tokenFor(first, ALICE), 'Across a restart');
      await until('a failed attempt', async () => (await attempts(first!, token, hook.id)).length > 0);
      await first.close();
      first = undefined;

      await down.start(port);
      second = await startTestApp(kind, { database, env });
      await until('the delivery after the restart', () => down.receipts.length > 0, 20_000);
      expect(verify(hook.secret, down.receipts[0])).toMatchObject({ type: 'POST_CREATED', data: { resource: { title: 'Across a restart' } } });
      const listed = await until('the delivery recorded', async () => {
        const found = await attempts(second!, await tokenFor(second!, ADMIN), hook.id);
        return found[0]?.status === 'delivered' && found;
      });
      expect(listed.at(-1)).toMatchObject({ attempt: 1, status: 'retrying', error: expect.stringMatching(/ECONNREFUSED/) });
    } finally {
      await first?.close();
      await second?.close();
      await database.drop();
    }
  });

  it.skipIf(kind !== 'postgres')('two instances on one PostgreSQL database send each event exactly once', async () => {
    const database = await createTestDatabase('postgres');
    const target = await receiver();
    const a = await startTestApp('postgres', { database, env: FAST });
    let b: TestApp | undefined;
    try {
      b = await startTestApp('postgres', { database, env: FAST });
      const token = await tokenFor(a, ADMIN);
      const tokens = [await tokenFor(a, ALICE), await tokenFor(b, ALICE)];
      await createWebhook(a, token, { url: target.url(), types: ['POST_CREATED', 'POST_UPDATED'] });
      const writes = 40;
      await Promise.all(
        Array.from({ length: writes }, (_, index) => writePost(index % 2 === 0 ? a : b!, tokens[index % 2], `Twice ${index}`)),
      );
      const dataSource = a.app.get(DataSource);
      await until(
        'every delivery delivered',
        async () => {
          const [row] = await dataSource.query("SELECT COUNT(*) AS count FROM webhook_deliveries WHERE status = 'delivered'");
          return Number(row.count) === writes;
        },
        30_000,
      );

      // The claim itself, raced: every due row goes to exactly one of many concurrent claims from
      // both instances' pools. (The rows are made due an hour from now, so that the running
      // senders, which claim what is due by the clock, leave them alone.)
      const due = new Date(Date.now() + 3_600_000);
      await dataSource.query("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1, lease_until = NULL", [due]);
      const later = new Date(due.getTime() + 1000);
      const lease = new Date(due.getTime() + 60_000);
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? a : b!).app.get(WebhookDeliveriesRepository).claimDue(later, lease, 3)),
      );
      const claimed = claims.flat().map((delivery) => delivery.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      expect(claimed).toHaveLength(writes);
      await dataSource.query("UPDATE webhook_deliveries SET status = 'delivered'");

      await Promise.all([a.close(), b.close()]);
      b = undefined;
      const ids = target.receipts.map((receipt) => receipt.headers['webhook-id']);
      expect(new Set(ids).size).toBe(writes);
      expect(ids).toHaveLength(writes);
    } finally {
      await a.close().catch(() => undefined);
      await b?.close();
      await database.drop();
    }
  });
});
