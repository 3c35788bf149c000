import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { MIGRATIONS } from '../src/database/migrations/index.js';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, type DatabaseKind, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { expectProblem } from './support/problems.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

const MIGRATION_NAMES = MIGRATIONS.map((Migration) => new Migration().name!).sort();
const DEMO_EMAILS = ['admin@example.com', 'alice@example.com', 'bob@example.com', 'editor@example.com', 'moderator@example.com'];
/** Posts and comments of the demo data. */
const DEMO_POSTS_AND_COMMENTS = [7, 14];

async function rows<T>(app: TestApp, sql: string): Promise<T[]> {
  return app.app.get(DataSource).query(sql);
}

/** Migration name → how many times the migrations table records it. */
async function migrationCounts(app: TestApp): Promise<Record<string, number>> {
  const result = await rows<{ name: string; n: number | string }>(app, 'SELECT name, count(*) AS n FROM migrations GROUP BY name');
  return Object.fromEntries(result.map((row) => [row.name, Number(row.n)]));
}

/** E-mail → how many users have it. */
async function emailCounts(app: TestApp): Promise<Record<string, number>> {
  const result = await rows<{ email: string; n: number | string }>(app, 'SELECT email, count(*) AS n FROM users GROUP BY email');
  return Object.fromEntries(result.map((row) => [row.email, Number(row.n)]));
}

async function tableCount(app: TestApp, table: 'users' | 'posts' | 'comments'): Promise<number> {
  return Number((await rows<{ n: number | string }>(app, `SELECT count(*) AS n FROM ${table}`))[0].n);
}

/** Starts an app on an existing database, runs `work` with it, and always closes it. */
async function withApp<T>(kind: DatabaseKind, database: TestDatabase, env: Record<string, string>, work: (app: TestApp) => Promise<T>): Promise<T> {
  const app = await startTestApp(kind, { database, env });
  try {
    return await work(app);
  } finally {
    await app.close();
  }
}

describeEachDatabase('startup', (kind) => {
  describe('SEED_DEMO_DATA=false', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { env: { SEED_DEMO_DATA: 'false' } });
    });
    afterAll(() => app?.close());

    it('starts on an empty database with no users, posts or comments', async () => {
      const users = await request(app.server).get('/users').expect(200);
      expect(users.body).toEqual([]);
      expect(users.headers.link).toBeUndefined();
      expect([await tableCount(app, 'users'), await tableCount(app, 'posts'), await tableCount(app, 'comments')]).toEqual([0, 0, 0]);
      expectProblem(await request(app.server).post('/tokens').send(ADMIN), 401);
    });

    it('still applies every migration once', async () => {
      expect(await migrationCounts(app)).toEqual(Object.fromEntries(MIGRATION_NAMES.map((name) => [name, 1])));
    });
  });

  it('loads the demo data by default: 5 users (an editor and a moderator too), 7 posts (5 public, a draft, a scheduled one), 4 tags, 14 comments (a thread, 3 pending)', async () => {
    const app = await startTestApp(kind);
    try {
      expect(await emailCounts(app)).toEqual(Object.fromEntries(DEMO_EMAILS.map((email) => [email, 1])));
      expect([await tableCount(app, 'posts'), await tableCount(app, 'comments')]).toEqual(DEMO_POSTS_AND_COMMENTS);
      const admin = await request(app.server).get('/users/1').expect(200);
      expect(admin.body).toMatchObject({ email: 'admin@example.com', role: 'admin' });
      await tokenFor(app, ADMIN);
      // The ids and roles the README's demo table lists.
      const users = await request(app.server).get('/users').expect(200);
      expect(users.body.map((user: { id: number; email: string; role: string }) => [user.id, user.email, user.role])).toEqual([
        [1, 'admin@example.com', 'admin'],
        [2, 'alice@example.com', 'author'],
        [3, 'bob@example.com', 'author'],
        [4, 'editor@example.com', 'editor'],
        [5, 'moderator@example.com', 'moderator'],
      ]);
      const tags = await request(app.server).get('/tags').expect(200);
      expect(Object.fromEntries(tags.body.map((tag: { slug: string; postCount: number }) => [tag.slug, tag.postCount]))).toEqual({ announcements: 1, 'http-api': 2, graphql: 2, operations: 1 });
      const thread = await request(app.server).get('/posts/5/comments?parentId=8').expect(200);
      expect(thread.body).toHaveLength(1);
      const moderator = await tokenFor(app, { email: 'moderator@example.com', password: 'moderator-password' });
      const queue = await request(app.server).get('/comments?status=pending').set(bearer(moderator)).expect(200);
      expect(queue.body).toHaveLength(3);
      await tokenFor(app, { email: 'editor@example.com', password: 'editor-password' });
    } finally {
      await app.close();
    }
  });

  describe('ADMIN_EMAIL and ADMIN_PASSWORD', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind, { file: true });
    });
    afterAll(() => database?.drop());

    it('create the first admin, who can sign in and act as admin', async () => {
      await withApp(kind, database, { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: 'Root@Example.com', ADMIN_PASSWORD: 'root-password-1' }, async (app) => {
        const users = await request(app.server).get('/users').expect(200);
        expect(users.body).toHaveLength(1);
        expect(users.body[0]).toMatchObject({ email: 'root@example.com', role: 'admin' });
        const token = await tokenFor(app, { email: 'root@example.com', password: 'root-password-1' });
        const created = await request(app.server)
          .post('/users')
          .send({ name: 'Someone', email: 'someone@example.com', password: 'someone-password' })
          .expect(201);
        const promoted = await request(app.server)
          .patch(`/users/${created.body.id}`)
          .set(bearer(token))
          .send({ role: 'admin' })
          .expect(200);
        expect(promoted.body.role).toBe('admin');
        await request(app.server).patch(`/users/${created.body.id}`).set(bearer(token)).send({ role: 'author' }).expect(200);
      });
    });

    it('are not applied again when an admin exists: no new admin, no password reset', async () => {
      await withApp(kind, database, { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: 'other@example.com', ADMIN_PASSWORD: 'other-password' }, async (app) => {
        expect(await emailCounts(app)).toEqual({ 'root@example.com': 1, 'someone@example.com': 1 });
        expectProblem(await request(app.server).post('/tokens').send({ email: 'other@example.com', password: 'other-password' }), 401);
      });
      await withApp(kind, database, { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'changed-password' }, async (app) => {
        expect(await tableCount(app, 'users')).toBe(2);
        await tokenFor(app, { email: 'root@example.com', password: 'root-password-1' });
        expectProblem(await request(app.server).post('/tokens').send({ email: 'root@example.com', password: 'changed-password' }), 401);
      });
    });

    it('do not stop the demo data loading into an empty database', async () => {
      const fresh = await createTestDatabase(kind);
      try {
        await withApp(kind, fresh, { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'root-password-1' }, async (app) => {
          const counts = await emailCounts(app);
          for (const email of [...DEMO_EMAILS, 'root@example.com']) expect(counts[email]).toBe(1);
          await tokenFor(app, { email: 'root@example.com', password: 'root-password-1' });
          await tokenFor(app, ALICE);
        });
      } finally {
        await fresh.drop();
      }
    });
  });

  describe('restarting on the same database', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase(kind, { file: true });
    });
    afterAll(() => database?.drop());

    it('applies no migration twice, seeds nothing twice and keeps the data', async () => {
      const created = await withApp(kind, database, {}, async (app) => {
        const response = await request(app.server)
          .post('/users')
          .send({ name: 'Durable', email: 'durable@example.com', password: 'durable-password' })
          .expect(201);
        return response.body as { id: number };
      });
      for (let start = 0; start < 2; start += 1) {
        await withApp(kind, database, {}, async (app) => {
          expect(await migrationCounts(app)).toEqual(Object.fromEntries(MIGRATION_NAMES.map((name) => [name, 1])));
          expect(await emailCounts(app)).toEqual(
            Object.fromEntries([...DEMO_EMAILS, 'durable@example.com'].map((email) => [email, 1])),
          );
          expect([await tableCount(app, 'posts'), await tableCount(app, 'comments')]).toEqual(DEMO_POSTS_AND_COMMENTS);
          const durable = await request(app.server).get(`/users/${created.id}`).expect(200);
          expect(durable.body.email).toBe('durable@example.com');
          await tokenFor(app, { email: 'durable@example.com', password: 'durable-password' });
        });
      }
    });
  });
});

const describePostgres = TEST_DATABASE_URL ? describe : describe.skip;

describePostgres(
  TEST_DATABASE_URL ? 'startup: instances starting together' : 'startup: instances starting together (skipped: TEST_DATABASE_URL is not set)',
  () => {
    it('three apps started at the same time on one fresh database all come up; migrations and seed run once', async () => {
      const database = await createTestDatabase('postgres');
      const apps: TestApp[] = [];
      try {
        const started = await Promise.allSettled([0, 1, 2].map(() => startTestApp('postgres', { database })));
        for (const result of started) if (result.status === 'fulfilled') apps.push(result.value);
        expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);

        for (const app of apps) await request(app.server).get('/health').expect(200);
        expect(await migrationCounts(apps[0])).toEqual(Object.fromEntries(MIGRATION_NAMES.map((name) => [name, 1])));
        expect(await emailCounts(apps[0])).toEqual(Object.fromEntries(DEMO_EMAILS.map((email) => [email, 1])));
        expect([await tableCount(apps[0], 'posts'), await tableCount(apps[0], 'comments')]).toEqual(DEMO_POSTS_AND_COMMENTS);
        // Every instance sees the same data and accepts the others' tokens.
        const token = await tokenFor(apps[1], ALICE);
        await request(apps[2].server).patch('/users/2').set(bearer(token)).send({ name: 'Alice Shared' }).expect(200);
        expect((await request(apps[0].server).get('/users/2').expect(200)).body.name).toBe('Alice Shared');
      } finally {
        for (const app of apps) await app.close();
        await database.drop();
      }
    });

    it('apps starting together on a migrated, empty database seed it once, with one first admin', async () => {
      const database = await createTestDatabase('postgres');
      const apps: TestApp[] = [];
      try {
        // Migrate ahead, so that every app reaches the seeding step at the same moment.
        const migrator = await new DataSource(buildDataSourceOptions({ type: 'postgres', url: database.url })).initialize();
        await migrator.runMigrations({ transaction: 'all' });
        await migrator.destroy();

        const env = { ADMIN_EMAIL: 'root@example.com', ADMIN_PASSWORD: 'root-password-1' };
        const started = await Promise.allSettled([0, 1, 2].map(() => startTestApp('postgres', { database, env })));
        for (const result of started) if (result.status === 'fulfilled') apps.push(result.value);
        expect(started.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
        expect(await emailCounts(apps[0])).toEqual(
          Object.fromEntries([...DEMO_EMAILS, 'root@example.com'].map((email) => [email, 1])),
        );
        expect([await tableCount(apps[0], 'posts'), await tableCount(apps[0], 'comments')]).toEqual(DEMO_POSTS_AND_COMMENTS);
      } finally {
        for (const app of apps) await app.close();
        await database.drop();
      }
    });
  },
);

describe('the server process', () => {
  const main = resolve('dist/src/main.js');
  let workDir: string;
  const children: ChildProcess[] = [];

  beforeAll(() => {
    if (!existsSync(main)) throw new Error(`${main} is missing: run "npm run build" first (npm test does it)`);
    workDir = mkdtempSync(join(tmpdir(), 'blog-process-'));
  });
  afterAll(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
  });

  interface Started {
    child: ChildProcess;
    output: () => string;
    exit: Promise<number | null>;
  }

  function startServer(env: Record<string, string>): Started {
    const base = { ...process.env };
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', 'CORS_ORIGINS', 'PORT', 'HOST']) delete base[name];
    const child = spawn(process.execPath, [main], {
      cwd: workDir,
      env: {
        ...base,
        NODE_ENV: 'test',
        NO_COLOR: '1',
        LOG_LEVEL: 'info',
        HOST: '127.0.0.1',
        PORT: '0',
        JWT_SECRET: 'process-test-secret-process-test-secret',
        DATABASE_URL: `sqlite:${join(workDir, `blog-${children.length}.sqlite`)}`,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exit = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    return { child, output: () => output, exit };
  }

  /** Resolves with the first match of `pattern` in the process output; rejects if it exits first. */
  function waitForOutput(started: Started, pattern: RegExp): Promise<RegExpMatchArray> {
    return new Promise((resolveMatch, reject) => {
      const check = () => {
        const match = pattern.exec(started.output());
        if (match) {
          cleanup();
          resolveMatch(match);
        }
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`exited with ${code} before printing ${pattern}:\n${started.output()}`));
      };
      const cleanup = () => {
        started.child.stdout!.off('data', check);
        started.child.stderr!.off('data', check);
        started.child.off('exit', onExit);
      };
      started.child.stdout!.on('data', check);
      started.child.stderr!.on('data', check);
      started.child.on('exit', onExit);
      check();
    });
  }

  it('SIGTERM finishes the request in flight, then exits with code 0', async () => {
    const server = startServer({});
    const [, port] = await waitForOutput(server, /Listening on http:\/\/127\.0\.0\.1:(\d+)/);

    // A request whose body arrives in two parts: in flight from the first byte to the last.
    const body = JSON.stringify({ name: 'In Flight', email: 'inflight@example.com', password: 'inflight-password' });
    const socket = connect(Number(port), '127.0.0.1');
    let response = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (response += chunk));
    const closed = new Promise<void>((resolveClose) => socket.on('close', () => resolveClose()));
    const continued = new Promise<void>((resolveContinue) => {
      const onData = () => {
        if (response.startsWith('HTTP/1.1 100')) {
          socket.off('data', onData);
          resolveContinue();
        }
      };
      socket.on('data', onData);
    });
    socket.write(
      'POST /users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n\r\n`,
    );
    // "100 Continue": the server has read the headers and is handling the request.
    await continued;
    socket.write(body.slice(0, 10));

    server.child.kill('SIGTERM');
    await waitForOutput(server, /SIGTERM: finishing requests in flight/);
    socket.write(body.slice(10));

    await closed;
    const final = response.slice(response.indexOf('\r\n\r\n') + 4);
    expect(final).toMatch(/^HTTP\/1\.1 201 /);
    expect(final).toContain('"email":"inflight@example.com"');
    expect(await server.exit).toBe(0);
  });

  it('SIGTERM on an idle server exits with code 0 and refuses new connections', async () => {
    const server = startServer({});
    const [, port] = await waitForOutput(server, /Listening on http:\/\/127\.0\.0\.1:(\d+)/);
    const health = await request(`http://127.0.0.1:${port}`).get('/health');
    expect(health.status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toBe(0);
    await expect(request(`http://127.0.0.1:${port}`).get('/health')).rejects.toThrow(/ECONNREFUSED/);
  });

  it.each([
    ['PORT', { PORT: 'abc' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['JWT_SECRET', { NODE_ENV: 'production', JWT_SECRET: '' }],
  ])('a bad %s stops start-up with a non-zero exit and a message naming it', async (setting, env) => {
    const server = startServer(env);
    const code = await server.exit;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(server.output()).toContain(setting);
    expect(server.output()).not.toMatch(/Listening on/);
  });
});
