import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { expectProblem } from './support/problems.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

describeEachDatabase('health', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('GET /health is 200 {status: "ok"} with the database up', async () => {
    const response = await request(app.server).get('/health').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.status).toBe('ok');
    expect(response.body.checks).toMatchObject({ database: { status: 'up' } });
  });

  it('needs no token, and a bad token is still 401', async () => {
    await request(app.server).get('/health').expect(200);
    expectProblem(await request(app.server).get('/health').set('Authorization', 'Bearer x.y.z'), 401);
  });
});

const describePostgres = TEST_DATABASE_URL ? describe : describe.skip;
const title = TEST_DATABASE_URL
  ? 'health: PostgreSQL becomes unreachable'
  : 'health: PostgreSQL becomes unreachable (skipped: TEST_DATABASE_URL is not set)';

describePostgres(title, () => {
  let proxy: TcpProxy;
  let database: TestDatabase;
  let app: TestApp;

  beforeAll(async () => {
    const target = new URL(TEST_DATABASE_URL!);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    database = await createTestDatabase('postgres');
    app = await startTestApp('postgres', { database: { ...database, url: proxy.rewrite(database.url) } });
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('the app talks to PostgreSQL through the proxy', async () => {
    expect(app.config.database.url).toContain(`:${proxy.port}/`);
    await request(app.server).get('/health').expect(200);
    expect(proxy.openConnections).toBeGreaterThan(0);
  });

  it('503 problem+json within 5 s when cut, 200 again when restored, without a restart', async () => {
    await request(app.server).get('/health').expect(200);
    proxy.cut();

    const started = Date.now();
    const down = await request(app.server).get('/health');
    const elapsed = Date.now() - started;
    const problem = expectProblem(down, 503, 'SERVICE_UNAVAILABLE');
    expect(elapsed).toBeLessThan(5000);
    expect(problem.instance).toBe('/health');
    expect(problem.detail).toMatch(/database/);
    expect(down.headers['retry-after']).toBeDefined();

    // A read and a sign-in answer 503 too, without leaking SQL or connection details.
    const read = await request(app.server).get('/users/1');
    expectProblem(read, 503, 'SERVICE_UNAVAILABLE');
    expect(read.text).not.toContain(String(proxy.port));
    const signIn = await request(app.server).post('/tokens').send(ALICE);
    expectProblem(signIn, 503, 'SERVICE_UNAVAILABLE');

    proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await request(app.server).get('/health')).status;
    }
    expect(status).toBe(200);
    const users = await request(app.server).get('/users').expect(200);
    expect(users.body.map((u: { email: string }) => u.email)).toContain('alice@example.com');
    await request(app.server).post('/tokens').send(ALICE).expect(201);
  });

  it('503 within 5 s when the network stalls (connections open, nothing answers), 200 once it heals', async () => {
    await request(app.server).get('/health').expect(200);
    proxy.stall();
    const started = Date.now();
    const down = await request(app.server).get('/health');
    const elapsed = Date.now() - started;
    expectProblem(down, 503, 'SERVICE_UNAVAILABLE');
    expect(elapsed).toBeLessThan(5000);

    proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 40 && status !== 200; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await request(app.server).get('/health')).status;
    }
    expect(status).toBe(200);
    await request(app.server).get('/users/1').expect(200);
  });

  it('recovers from a second outage as well', async () => {
    proxy.cut();
    expectProblem(await request(app.server).get('/health'), 503, 'SERVICE_UNAVAILABLE');
    proxy.restore();
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await request(app.server).get('/health')).status;
    }
    expect(status).toBe(200);
  });
});
