import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase } from './support/databases.js';
import { expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { type ListeningApp, listen, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Credentials that can be taken back, and account rules that cannot be turned around:
 * revocation (sign-out everywhere, password change), the current password, the last admin,
 * ADMIN_EMAIL, look-alike e-mail addresses, and which X-Forwarded-For entry is the client.
 */
describeEachDatabase('credentials: revocation and account invariants', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let admin: string;
  const clients: WsClient[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    admin = await tokenFor(app, ADMIN);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(() => app?.close());

  const http = () => request(app.server);
  let count = 0;
  const newUser = async () => {
    count += 1;
    const email = `cred-${kind}-${count}-${Date.now()}@example.com`;
    const password = 'first-password';
    const { id } = (await http().post('/users').send({ name: `Cred ${count}`, email, password }).expect(201)).body;
    return { id: id as number, email, password, token: await tokenFor(app, { email, password }) };
  };
  const me = (token: string) => http().get('/posts?limit=1').set(bearer(token));
  const write = (token: string) => http().post('/posts').set(bearer(token)).send({ title: 'Still me?', body: 'b' });

  describe('DELETE /users/{id}/tokens and revokeTokens', () => {
    it('refuses every token issued before (401 on REST and GraphQL); a token issued after works', async () => {
      const user = await newUser();
      const second = await tokenFor(app, { email: user.email, password: user.password });
      await write(user.token).expect(201);
      await http().delete(`/users/${user.id}/tokens`).set(bearer(user.token)).expect(204);
      expectProblem(await write(user.token), 401, 'UNAUTHENTICATED');
      expectProblem(await me(second), 401, 'UNAUTHENTICATED');
      const viaGraphQL = await graphql(app, '{ me { id } }', undefined, { token: second });
      expect(viaGraphQL.status).toBe(401);
      const fresh = await tokenFor(app, { email: user.email, password: user.password });
      await write(fresh).expect(201);
    });

    it('the user or an admin; others 403, anonymous 401, unknown user 404', async () => {
      const user = await newUser();
      const other = await newUser();
      expectProblem(await http().delete(`/users/${user.id}/tokens`), 401, 'UNAUTHENTICATED');
      expectProblem(await http().delete(`/users/${user.id}/tokens`).set(bearer(other.token)), 403, 'FORBIDDEN');
      expectProblem(await http().delete('/users/999999/tokens').set(bearer(admin)), 404, 'NOT_FOUND');
      await http().delete(`/users/${user.id}/tokens`).set(bearer(admin)).expect(204);
      expectProblem(await write(user.token), 401, 'UNAUTHENTICATED');
      await write(other.token).expect(201);
    });

    it('over GraphQL: revokeTokens(userId) closes the user’s open socket with 4403', async () => {
      const user = await newUser();
      const socket = wsClient(urls.ws, { token: user.token });
      clients.push(socket);
      await socket.connected;
      const result = await graphql(app, 'mutation($id: Int!) { revokeTokens(userId: $id) }', { id: user.id }, { token: admin });
      expect(result.body.data).toEqual({ revokeTokens: true });
      expect((await socket.closed).code).toBe(4403);
      expectError(await graphql(app, 'mutation($id: Int!) { revokeTokens(userId: $id) }', { id: user.id }), 'UNAUTHENTICATED', ['revokeTokens']);
    });
  });

  describe('changing a password', () => {
    it('needs the current password for one’s own (400 without, 403 wrong), then refuses the earlier tokens', async () => {
      const user = await newUser();
      const patch = (body: Record<string, unknown>) => http().patch(`/users/${user.id}`).set(bearer(user.token)).send(body);
      expectProblem(await patch({ password: 'second-password' }), 400, 'BAD_USER_INPUT');
      expectProblem(await patch({ password: 'second-password', currentPassword: 'not-my-password' }), 403, 'FORBIDDEN');
      await write(user.token).expect(201);
      await patch({ password: 'second-password', currentPassword: user.password }).expect(200);
      expectProblem(await write(user.token), 401, 'UNAUTHENTICATED');
      expectProblem(await http().post('/tokens').send({ email: user.email, password: user.password }), 401);
      await write(await tokenFor(app, { email: user.email, password: 'second-password' })).expect(201);
    });

    it('an admin sets another user’s password without it, and the user’s tokens stop working', async () => {
      const user = await newUser();
      await http().patch(`/users/${user.id}`).set(bearer(admin)).send({ password: 'set-by-admin' }).expect(200);
      expectProblem(await write(user.token), 401, 'UNAUTHENTICATED');
      await tokenFor(app, { email: user.email, password: 'set-by-admin' });
    });

    it('over GraphQL: UpdateUserInput.currentPassword', async () => {
      const user = await newUser();
      const update = (input: Record<string, unknown>) =>
        graphql(app, 'mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }', { id: user.id, input }, { token: user.token });
      expectError(await update({ password: 'second-password' }), 'BAD_USER_INPUT', ['updateUser']);
      expectError(await update({ password: 'second-password', currentPassword: 'wrong-password' }), 'FORBIDDEN', ['updateUser']);
      expect((await update({ password: 'second-password', currentPassword: user.password })).body.data).toEqual({ updateUser: { id: user.id } });
    });
  });

  describe('the last admin', () => {
    it('cannot be demoted or deleted (409) while alone; can once another admin exists', async () => {
      const solo = await startTestApp(kind, { env: { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: 'solo@example.com', ADMIN_PASSWORD: 'solo-password-1' } });
      try {
        const token = await tokenFor(solo, { email: 'solo@example.com', password: 'solo-password-1' });
        const { id } = (await request(solo.server).get('/users').expect(200)).body[0];
        expectProblem(await request(solo.server).patch(`/users/${id}`).set(bearer(token)).send({ role: 'author' }), 409, 'CONFLICT');
        expectProblem(await request(solo.server).delete(`/users/${id}`).set(bearer(token)), 409, 'CONFLICT');
        const demote = await graphql(solo, 'mutation($id: Int!) { updateUser(id: $id, input: { role: AUTHOR }) { role } }', { id }, { token });
        expectError(demote, 'CONFLICT', ['updateUser']);
        const second = (await request(solo.server).post('/users').send({ name: 'Second', email: 'second@example.com', password: 'second-password' }).expect(201)).body;
        await request(solo.server).patch(`/users/${second.id}`).set(bearer(token)).send({ role: 'admin' }).expect(200);
        expect((await request(solo.server).patch(`/users/${id}`).set(bearer(token)).send({ role: 'author' }).expect(200)).body.role).toBe('author');
      } finally {
        await solo.close();
      }
    });
  });

  describe('e-mail addresses', () => {
    const signUp = (email: string) => http().post('/users').send({ name: 'Look-alike', email, password: 'lookalike-password' });

    it('refuses control and invisible formatting characters with 400', async () => {
      for (const email of ['ad\u202Emin@example.com', 'ad\u200Dmin@example.com', 'a\u200Bb@example.com', 'ad\u0007min@example.com']) {
        const response = await signUp(email);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(JSON.stringify(response.body.errors)).toContain('email');
      }
    });

    it('NFKC-normalizes and lower-cases: fullwidth and decomposed twins are the same address (409), and sign in', async () => {
      const local = `twin${Date.now()}${kind}`;
      const created = await signUp(`${local}.\u00e9@example.com`).expect(201);
      expect(created.body.email).toBe(`${local}.\u00e9@example.com`);
      expectProblem(await signUp(`${local}.e\u0301@example.com`), 409, 'CONFLICT');
      const fullwidth = [...`${local}.`].map((c) => (/[a-z0-9]/.test(c) ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c)).join('');
      expectProblem(await signUp(`${fullwidth.toUpperCase()}\u00e9@example.com`), 409, 'CONFLICT');
      await tokenFor(app, { email: `${local.toUpperCase()}.E\u0301@EXAMPLE.COM`, password: 'lookalike-password' });
    });
  });
});

describe('credentials: ADMIN_EMAIL never promotes an existing account', () => {
  it('someone who signed up with the address stays an author across a restart; nothing is created', async () => {
    const database = await createTestDatabase('sqlite', { file: true });
    try {
      const first = await startTestApp('sqlite', { database, env: { SEED_DEMO_DATA: 'false' } });
      const { id } = (await request(first.server).post('/users').send({ name: 'Squatter', email: 'boss@example.com', password: 'squatter-password' }).expect(201)).body;
      const token = await tokenFor(first, { email: 'boss@example.com', password: 'squatter-password' });
      await first.close();

      const second = await startTestApp('sqlite', { database, env: { SEED_DEMO_DATA: 'false', ADMIN_EMAIL: 'Boss@Example.com', ADMIN_PASSWORD: 'operator-password' } });
      try {
        expect((await request(second.server).get(`/users/${id}`).expect(200)).body.role).toBe('author');
        expect((await request(second.server).get('/users').expect(200)).body).toHaveLength(1);
        expectProblem(await request(second.server).post('/tokens').send({ email: 'boss@example.com', password: 'operator-password' }), 401);
        expectProblem(await request(second.server).patch(`/users/${id}`).set(bearer(token)).send({ role: 'admin' }), 403, 'FORBIDDEN');
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});

describe('credentials: TRUST_PROXY picks the client from the right of X-Forwarded-For', () => {
  const limitedApp = (trustProxy: string) => startTestApp('sqlite', { env: { TRUST_PROXY: trustProxy, RATE_LIMIT_MAX: '2' } });
  const get = (app: TestApp, forwardedFor: string) => request(app.server).get('/posts?limit=1').set('X-Forwarded-For', forwardedFor);

  it('true (one hop): the entry our proxy appended counts; what the client wrote to its left does not', async () => {
    const app = await limitedApp('true');
    try {
      await get(app, 'spoof-1, 198.51.100.7').expect(200);
      await get(app, '10.9.9.9, 198.51.100.7').expect(200);
      expectProblem(await get(app, '203.0.113.250, 198.51.100.7'), 429, 'RATE_LIMITED');
      await get(app, '203.0.113.250, 198.51.100.8').expect(200);
    } finally {
      await app.close();
    }
  });

  it('a number of hops: the address the outermost trusted proxy saw', async () => {
    const app = await limitedApp('2');
    try {
      await get(app, '1.1.1.1, 198.51.100.20, 10.0.0.2').expect(200);
      await get(app, '2.2.2.2, 198.51.100.20, 10.0.0.3').expect(200);
      expectProblem(await get(app, '3.3.3.3, 198.51.100.20, 10.0.0.4'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });

  it('a list of proxies: only their entries are skipped', async () => {
    const app = await limitedApp('127.0.0.1, ::1, ::ffff:127.0.0.1, 10.0.0.0/8');
    try {
      await get(app, '1.1.1.1, 198.51.100.30, 10.1.2.3').expect(200);
      await get(app, '2.2.2.2, 198.51.100.30, 10.4.5.6').expect(200);
      expectProblem(await get(app, '3.3.3.3, 198.51.100.30'), 429, 'RATE_LIMITED');
    } finally {
      await app.close();
    }
  });
});
