import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, BOB } from './support/auth.js';
import { loadSqliteDriver } from '../src/database/sqlite-driver.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { killAllServers, requireBuild, type ServerProcess, startServer, tempWorkDir } from './support/server-process.js';
import { describeEachDatabase } from './support/test-app.js';

const Database = loadSqliteDriver();

/**
 * Durability: the built server takes concurrent writes and is killed (SIGKILL) while they are
 * in flight. Restarted on the same database, every write it had answered 201 is there, as it
 * was answered, with its event in the event log, and the database opens cleanly.
 */

interface Acknowledged {
  kind: 'post' | 'comment';
  location: string;
  body: Record<string, unknown>;
}

const WORKERS = 16;
/** Kill once this many writes were acknowledged (with more in flight). */
const KILL_AFTER = 80;

/** The created events in the log ('post:<id>', 'comment:<id>'), and how many name a row that does not exist. */
async function createdEvents(url: string): Promise<{ logged: Set<string>; orphans: number }> {
  const listed = 'SELECT type, post_id, comment_id FROM events WHERE type IN (\'POST_CREATED\', \'COMMENT_CREATED\')';
  const orphaned =
    "SELECT COUNT(*) AS n FROM events e WHERE (e.type = 'POST_CREATED' AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.id = e.post_id)) " +
    "OR (e.type = 'COMMENT_CREATED' AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = e.comment_id))";
  let rows: { type: string; post_id: number; comment_id: number | null }[];
  let orphans: number;
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      rows = db.prepare(listed).all() as typeof rows;
      orphans = Number((db.prepare(orphaned).get() as { n: number }).n);
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      rows = (await client.query(listed)).rows;
      orphans = Number((await client.query(orphaned)).rows[0].n);
    } finally {
      await client.end();
    }
  }
  const logged = new Set(rows.map((row) => (row.type === 'POST_CREATED' ? `post:${row.post_id}` : `comment:${row.comment_id}`)));
  return { logged, orphans };
}

async function signIn(base: string, credentials: { email: string; password: string }): Promise<string> {
  const response = await fetch(`${base}/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(credentials) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

describeEachDatabase('durability', (kind) => {
  let database: TestDatabase;
  let work: { dir: string; remove: () => void };
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    work = tempWorkDir('blog-durability-');
    database = await createTestDatabase(kind, { file: true });
  });
  afterAll(async () => {
    killAllServers();
    await Promise.all(servers.map((server) => server.exited));
    await database?.drop();
    work?.remove();
  });

  it('every write answered 201 before a SIGKILL is there after a restart, and the database opens cleanly', async () => {
    const first = await startServer({ DATABASE_URL: database.url }, work.dir);
    servers.push(first);
    const tokens = [await signIn(first.url, ALICE), await signIn(first.url, BOB)];

    const acknowledged: Acknowledged[] = [];
    const postIds: number[] = [1];
    let killed = false;
    let sequence = 0;

    const worker = async (index: number) => {
      const token = tokens[index % tokens.length];
      while (!killed) {
        sequence += 1;
        const n = sequence;
        const comment = n % 2 === 0;
        const path = comment ? `/posts/${postIds[n % postIds.length]}/comments` : '/posts';
        const sent = comment ? { body: `Durable comment ${n} by worker ${index}` } : { title: `Durable post ${n}`, body: `Written by worker ${index}, number ${n}` };
        try {
          const response = await fetch(`${first.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(sent),
          });
          const text = await response.text();
          if (response.status !== 201) {
            // Before the kill every write must succeed; after it nothing is answered at all.
            if (!killed) throw new Error(`POST ${path}: ${response.status} ${text}`);
            continue;
          }
          const body = JSON.parse(text) as Record<string, unknown>;
          const location = response.headers.get('location');
          expect(location).toBe(comment ? `/comments/${body.id}` : `/posts/${body.id}`);
          acknowledged.push({ kind: comment ? 'comment' : 'post', location: location!, body });
          if (!comment) postIds.push(body.id as number);
          if (acknowledged.length >= KILL_AFTER && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch (error) {
          // After the kill: a request in flight, whose outcome the client cannot know.
          if (!killed) throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, index) => worker(index)));
    const exit = await first.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    if (kind === 'sqlite') {
      // Opened by SQLite itself, before the service touches it: the file (and its WAL) is sound.
      const path = database.url.slice('sqlite:'.length);
      const db = new Database(path);
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(db.pragma('foreign_key_check')).toEqual([]);
      } finally {
        db.close();
      }
    }

    const second = await startServer({ DATABASE_URL: database.url }, work.dir);
    servers.push(second);
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
    const missing: string[] = [];
    for (const write of acknowledged) {
      const response = await fetch(`${second.url}${write.location}`);
      if (response.status !== 200) {
        missing.push(`${write.location}: ${response.status}`);
        continue;
      }
      // Read anonymously: the writer's own links (a post's revisions) are not shown.
      const { revisions: _, ...links } = (write.body._links ?? {}) as Record<string, unknown>;
      expect(await response.json(), write.location).toEqual({ ...write.body, _links: links });
    }
    expect(missing, 'acknowledged writes lost').toEqual([]);

    // Each acknowledged write has its event in the log (recorded in the write's own transaction),
    // and no event in the log tells of a write that is not there.
    const events = await createdEvents(database.url);
    expect(acknowledged.filter((write) => !events.logged.has(`${write.kind}:${write.body.id}`)).map((write) => write.location), 'acknowledged writes without their event').toEqual([]);
    expect(events.orphans, 'events of writes that are not there').toBe(0);

    // New writes work on the restarted service, and ids move on (none reused).
    const token = await signIn(second.url, ALICE);
    const after = await fetch(`${second.url}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'After the crash', body: 'Still writing' }),
    });
    expect(after.status).toBe(201);
    const newId = ((await after.json()) as { id: number }).id;
    const highest = Math.max(...acknowledged.filter((write) => write.kind === 'post').map((write) => write.body.id as number));
    expect(newId).toBeGreaterThan(highest);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});
