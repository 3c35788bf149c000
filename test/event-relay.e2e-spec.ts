import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRelay } from '../src/events/event-relay.js';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { TEST_DATABASE_URL } from './support/databases.js';
import { type ListeningApp, LiveSubscription, listen, sleep, until, waitForSubscribers, type WsClient, wsClient } from './support/subscriptions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The relay reads the event log in commit order on PostgreSQL: an event is not read while a
 * transaction that began before its own is still open (that transaction may yet add events
 * with lower ids), so nothing is skipped; once it ends, the waiting events follow, in order.
 */
describe.skipIf(!TEST_DATABASE_URL)('event relay on PostgreSQL: commit order', () => {
  let app: TestApp;
  let urls: ListeningApp;
  let client: WsClient;
  let token: string;
  let holder: pg.Client;

  beforeAll(async () => {
    app = await startTestApp('postgres');
    urls = await listen(app);
    client = wsClient(urls.ws);
    token = await tokenFor(app, ALICE);
    holder = new pg.Client({ connectionString: app.config.database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.query('ROLLBACK').catch(() => undefined);
    await holder?.end();
    await client?.dispose();
    await app?.close();
  });

  it('an event waits while an older transaction is open, and is published once it ends, once', async () => {
    const live = new LiveSubscription(client.client, 'subscription { postCreated { id title } }');
    await waitForSubscribers(app, 'postCreated', 1);

    // An older transaction holds its id open (as a slow write would).
    await holder.query('BEGIN');
    await holder.query('SELECT pg_current_xact_id()');
    const created = await request(app.server).post('/posts').set(bearer(token)).send({ title: 'after an older transaction', body: 'b' }).expect(201);

    await sleep(1500); // more than the relay's poll: it has looked, and must not have published
    expect(live.results).toEqual([]);
    const relay = app.app.get(EventRelay);
    const held = relay.published;

    await holder.query('COMMIT');
    await until('the event, once the older transaction ended', () => live.results.length === 1, 5_000);
    expect(live.results[0].data).toEqual({ postCreated: { id: created.body.id, title: 'after an older transaction' } });
    expect(relay.published.id).toBeGreaterThan(held.id);
    await sleep(300);
    expect(live.results).toHaveLength(1);
    live.dispose();
  });
});
