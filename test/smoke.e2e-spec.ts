import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

describeEachDatabase('smoke', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('serves health and the demo users', async () => {
    await request(app.server).get('/health').expect(200);
    const users = await request(app.server).get('/users').expect(200);
    expect(users.body.map((u: { email: string }) => u.email)).toContain('alice@example.com');
  });
});
