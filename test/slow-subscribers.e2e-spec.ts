import Database from 'better-sqlite3';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { sampleValue } from './support/graphql-client.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { type HeldStream, heldStream } from './support/sse.js';
import { sleep } from './support/subscriptions.js';
import { startTestApp } from './support/test-app.js';

/**
 * Issue 21 (1): subscribers that read slower than events come, or not at all, cost the server a
 * bounded amount of memory. An event stream pulls its next result only once the previous one has
 * been written out; a live subscription's unread queue is bounded; past the bounds the
 * subscription ends with SUBSCRIBER_TOO_SLOW (an `events` stream says where to resume).
 */

/** Events in the log of the memory test, and the size of each post body. */
const LOG_EVENTS = 2000;
const BODY_CHARS = 20_000;
/** Event streams whose clients never read. */
const STREAMS = 20;
/** What those streams may add to the server's resident memory, at most. */
const RSS_BOUND_MB = 150;
const MB = 1_048_576;

const EVENTS_WITH_BODIES = 'subscription($after: String) { events(after: $after) { cursor type post { id title body } } }';

describe('event streams whose clients never read (the built server, a SQLite file)', () => {
  let database: TestDatabase;
  let work: { dir: string; remove: () => void };
  let server: ServerProcess;
  let oldest: string;
  const streams: HeldStream[] = [];

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-slow-subscribers-');
    database = await createTestDatabase('sqlite', { file: true });
    // One post with a large body through the API, so its event is what the service writes...
    const app = await startTestApp('sqlite', { database });
    try {
      const token = await tokenFor(app, ALICE);
      await request(app.server).post('/posts').set(bearer(token)).send({ title: 'large', body: 'x'.repeat(BODY_CHARS) }).expect(201);
    } finally {
      await app.close();
    }
    // ...then copied in SQL until the log holds LOG_EVENTS events (the API would take minutes).
    const sqlite = new Database(database.url.slice('sqlite:'.length));
    try {
      const template = sqlite.prepare("SELECT max(id) AS id FROM events WHERE type = 'POST_CREATED'").get() as { id: number };
      const copy = sqlite.prepare(
        'INSERT INTO events (type, occurred_at, post_id, comment_id, author_id, resource) SELECT type, occurred_at, post_id, comment_id, author_id, resource FROM events WHERE id = ?',
      );
      const count = () => (sqlite.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
      sqlite.transaction(() => {
        for (let n = count(); n < LOG_EVENTS; n++) copy.run(template.id);
      })();
      expect(count()).toBe(LOG_EVENTS);
    } finally {
      sqlite.close();
    }
    server = await startServer({ DATABASE_URL: database.url, SEED_DEMO_DATA: 'false' }, work.dir);
    const first = (await (await fetch(`${server.url}/events?limit=1`)).json()) as { cursor: string }[];
    oldest = first[0].cursor;
  }, 120_000);
  afterAll(async () => {
    for (const stream of streams) stream.close();
    killAllServers();
    if (server) await server.exited;
    await database?.drop();
    work?.remove();
  });

  const rss = async () => sampleValue(await (await fetch(`${server.url}/metrics`)).text(), 'process_resident_memory_bytes');
  const health = async () => {
    const started = performance.now();
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    return performance.now() - started;
  };

  it(`${STREAMS} paused events(after: <oldest>) streams over ${LOG_EVENTS} large events raise RSS by less than ${RSS_BOUND_MB} MB; /health answers within 1 s`, async () => {
    await health();
    const before = await rss();
    for (let index = 0; index < STREAMS; index++) {
      const stream = await heldStream(server.url, { query: EVENTS_WITH_BODIES, variables: { after: oldest } });
      streams.push(stream);
      expect(stream.status).toBe(200);
    }
    // Long enough for each stream to have replayed the whole log, had nothing held it back.
    let peak = before;
    let slowest = 0;
    for (let second = 0; second < 15; second++) {
      await sleep(1000);
      slowest = Math.max(slowest, await health());
      peak = Math.max(peak, await rss());
    }
    const grown = (peak - before) / MB;
    console.log(`RSS ${Math.round(before / MB)} MB → peak ${Math.round(peak / MB)} MB (+${Math.round(grown)} MB); slowest /health ${Math.round(slowest)} ms`);
    expect(grown).toBeLessThan(RSS_BOUND_MB);
    expect(slowest).toBeLessThan(1000);
  }, 120_000);
});
