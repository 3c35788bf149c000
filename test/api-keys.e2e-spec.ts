import { JwtService } from '@nestjs/jwt';
import { DataSource } from 'typeorm';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { expectError, graphql } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { type RawStream, rawStream } from './support/sse.js';
import { type ListeningApp, LiveSubscription, listen, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/** API keys for integrators: shown once, stored as a keyed hash, scoped, expiring, revocable. */
describeEachDatabase('API keys', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let admin: string;
  const clients: WsClient[] = [];
  const streams: RawStream[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
    admin = await tokenFor(app, ADMIN);
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await Promise.all(clients.splice(0).map((client) => client.dispose()));
  });
  afterAll(() => app?.close());

  const http = () => request(app.server);
  let count = 0;
  const newUser = async () => {
    count += 1;
    const email = `keys-${kind}-${count}-${Date.now()}@example.com`;
    const { id } = (await http().post('/users').send({ name: `Keys ${count}`, email, password: 'keys-password' }).expect(201)).body;
    return { id: id as number, email, password: 'keys-password', token: await tokenFor(app, { email, password: 'keys-password' }) };
  };
  /** One of our tokens for the user, as if signed in `ageS` seconds ago (still valid for an hour). */
  const tokenIssuedAgo = (userId: number, ageS: number) =>
    app.app.get(JwtService, { strict: false }).sign({ sub: String(userId), iat: Math.floor(Date.now() / 1000) - ageS }, { algorithm: 'HS256', expiresIn: 3600 });
  const createKey = (userId: number, token: string, body: Record<string, unknown>) =>
    http().post(`/users/${userId}/api-keys`).set(bearer(token)).send(body);
  const newKey = async (userId: number, token: string, scopes: string[], extra: Record<string, unknown> = {}) => {
    const response = await createKey(userId, token, { name: 'Integration', scopes, ...extra }).expect(201);
    return response.body as { id: number; key: string; scopes: string[] };
  };
  const post = (credential: string) => http().post('/posts').set(bearer(credential)).send({ title: 'By key', body: 'b' });

  it('is created once with its key, listed without it, and stored only as a hash', async () => {
    const user = await newUser();
    const created = await createKey(user.id, user.token, { name: '  Nightly export ', scopes: ['write', 'read'] }).expect(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Nightly export',
      scopes: ['read', 'write'],
      createdAt: expect.any(String),
      expiresAt: null,
      lastUsedAt: null,
      key: expect.stringMatching(/^blog_[A-Za-z0-9_-]{43}$/),
    });
    const listed = await http().get(`/users/${user.id}/api-keys`).set(bearer(user.token)).expect(200);
    expect(listed.body).toEqual([{ ...created.body, key: undefined }].map(({ key: _key, ...rest }) => rest));
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    const rows = await app.app.get(DataSource).query('SELECT * FROM api_keys WHERE id = $1'.replace('$1', String(created.body.id)));
    expect(JSON.stringify(rows)).not.toContain(created.body.key);
    expect(JSON.stringify(rows)).not.toContain(created.body.key.slice(5));
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a write key acts as its user; a read key reads (and `me`) but is 403 INSUFFICIENT_SCOPE for every write', async () => {
    const user = await newUser();
    const writer = await newKey(user.id, user.token, ['read', 'write']);
    const reader = await newKey(user.id, user.token, ['read']);
    const created = await post(writer.key).expect(201);
    expect(created.body.authorId).toBe(user.id);
    await http().get(`/posts/${created.body.id}`).set(bearer(reader.key)).expect(200);
    expect((await graphql(app, '{ me { id } }', undefined, { token: reader.key })).body.data).toEqual({ me: { id: user.id } });
    expectProblem(await post(reader.key), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await http().delete(`/posts/${created.body.id}`).set(bearer(reader.key)), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await http().patch(`/users/${user.id}`).set(bearer(reader.key)).send({ name: 'x' }), 403, 'INSUFFICIENT_SCOPE');
    expectProblem(await http().delete(`/users/${user.id}/tokens`).set(bearer(reader.key)), 403, 'INSUFFICIENT_SCOPE');
    expectError(await graphql(app, 'mutation { createPost(input: { title: "t", body: "b" }) { id } }', undefined, { token: reader.key }), 'INSUFFICIENT_SCOPE', ['createPost']);
    // A read key lists its user's keys.
    expect((await http().get(`/users/${user.id}/api-keys`).set(bearer(reader.key)).expect(200)).body).toHaveLength(2);
  });

  it("an admin's read key may not list other users' keys (403 INSUFFICIENT_SCOPE, REST and GraphQL); its own, yes; a write key may", async () => {
    const user = await newUser();
    await newKey(user.id, user.token, ['read']);
    const adminToken = await tokenFor(app, ADMIN);
    const adminId = (await graphql(app, '{ me { id } }', undefined, { token: adminToken })).body.data!.me.id as number;
    const reader = await newKey(adminId, adminToken, ['read']);
    const writer = await newKey(adminId, adminToken, ['read', 'write']);
    expectProblem(await http().get(`/users/${user.id}/api-keys`).set(bearer(reader.key)), 403, 'INSUFFICIENT_SCOPE');
    const query = 'query($u: Int!) { apiKeys(userId: $u) { id } }';
    expectError(await graphql(app, query, { u: user.id }, { token: reader.key }), 'INSUFFICIENT_SCOPE', ['apiKeys']);
    await http().get(`/users/${adminId}/api-keys`).set(bearer(reader.key)).expect(200);
    expect((await http().get(`/users/${user.id}/api-keys`).set(bearer(writer.key)).expect(200)).body).toHaveLength(1);
    expect((await graphql(app, query, { u: user.id }, { token: writer.key })).body.data?.apiKeys).toHaveLength(1);
  });

  it('keys cannot create keys, even with write; lastUsedAt is recorded', async () => {
    const user = await newUser();
    const writer = await newKey(user.id, user.token, ['write']);
    expectProblem(await createKey(user.id, writer.key, { name: 'Nested', scopes: ['read'] }), 403, 'INSUFFICIENT_SCOPE');
    await http().get('/posts?limit=1').set(bearer(writer.key)).expect(200);
    await until('lastUsedAt written', async () => {
      const keys = (await http().get(`/users/${user.id}/api-keys`).set(bearer(user.token))).body as { lastUsedAt: string | null }[];
      return keys[0].lastUsedAt !== null;
    });
  });

  it('an expired key is 401; expiresAt must be in the future', async () => {
    const user = await newUser();
    expectProblem(await createKey(user.id, user.token, { name: 'Past', scopes: ['read'], expiresAt: '2020-01-01T00:00:00Z' }), 400, 'BAD_USER_INPUT');
    const soon = await newKey(user.id, user.token, ['write'], { expiresAt: new Date(Date.now() + 1500).toISOString() });
    await post(soon.key).expect(201);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    expectProblem(await post(soon.key), 401, 'UNAUTHENTICATED');
  });

  it('a revoked key is 401 at once; a socket opened with it is closed (4403), and a new one refused', async () => {
    const user = await newUser();
    const writer = await newKey(user.id, user.token, ['write']);
    const socket = wsClient(urls.ws, { token: writer.key });
    clients.push(socket);
    await socket.connected;
    await http().delete(`/users/${user.id}/api-keys/${writer.id}`).set(bearer(user.token)).expect(204);
    expectProblem(await post(writer.key), 401, 'UNAUTHENTICATED');
    expect((await socket.closed).code).toBe(4403);
    const again = wsClient(urls.ws, { token: writer.key });
    clients.push(again);
    expect((await again.closed).code).toBe(4403);
    expectProblem(await http().delete(`/users/${user.id}/api-keys/${writer.id}`).set(bearer(user.token)), 404, 'NOT_FOUND');
  });

  it("a deleted user's keys are 401", async () => {
    const user = await newUser();
    const writer = await newKey(user.id, user.token, ['write']);
    await http().delete(`/users/${user.id}`).set(bearer(admin)).expect(204);
    expectProblem(await http().get('/posts?limit=1').set(bearer(writer.key)), 401, 'UNAUTHENTICATED');
  });

  it("the user or an admin: others 403, anonymous 401, another user's key 404", async () => {
    const user = await newUser();
    const other = await newUser();
    expectProblem(await createKey(user.id, '', { name: 'x', scopes: ['read'] }).set('authorization', ''), 401, 'UNAUTHENTICATED');
    expectProblem(await createKey(user.id, other.token, { name: 'x', scopes: ['read'] }), 403, 'FORBIDDEN');
    expectProblem(await http().get(`/users/${user.id}/api-keys`).set(bearer(other.token)), 403, 'FORBIDDEN');
    const byAdmin = await newKey(user.id, await tokenFor(app, ADMIN), ['read']);
    const others = await newKey(other.id, other.token, ['read']);
    expectProblem(await http().delete(`/users/${user.id}/api-keys/${others.id}`).set(bearer(user.token)), 404, 'NOT_FOUND');
    expectProblem(await http().post('/users/999999/api-keys').set(bearer(admin)).send({ name: 'x', scopes: ['read'] }), 404, 'NOT_FOUND');
    await http().delete(`/users/${user.id}/api-keys/${byAdmin.id}`).set(bearer(admin)).expect(204);
    expectProblem(await http().get('/users/1/api-keys').set(bearer('blog_' + 'x'.repeat(43))), 401, 'UNAUTHENTICATED');
  });

  it('over GraphQL too: createApiKey (the key once), apiKeys (without it), revokeApiKey; the same rules', async () => {
    const user = await newUser();
    const other = await newUser();
    const created = await graphql(
      app,
      'mutation($u: Int!, $i: CreateApiKeyInput!) { createApiKey(userId: $u, input: $i) { id name scopes expiresAt lastUsedAt key } }',
      { u: user.id, i: { name: 'Via GraphQL', scopes: ['read', 'write'], expiresAt: '2099-01-01T00:00:00Z' } },
      { token: user.token },
    );
    const key = created.body.data?.createApiKey as { id: number; key: string; scopes: string[]; expiresAt: string };
    expect(key).toMatchObject({ name: 'Via GraphQL', scopes: ['read', 'write'], expiresAt: '2099-01-01T00:00:00.000Z', lastUsedAt: null });
    expect(key.key).toMatch(/^blog_/);
    await post(key.key).expect(201);
    const listed = await graphql(app, 'query($u: Int!) { apiKeys(userId: $u) { id name } }', { u: user.id }, { token: user.token });
    expect(listed.body.data).toEqual({ apiKeys: [{ id: key.id, name: 'Via GraphQL' }] });
    expectError(await graphql(app, 'query($u: Int!) { apiKeys(userId: $u) { id } }', { u: user.id }, { token: other.token }), 'FORBIDDEN', ['apiKeys']);
    expectError(
      await graphql(app, 'mutation($u: Int!) { createApiKey(userId: $u, input: { name: "n", scopes: ["read"] }) { key } }', { u: user.id }, { token: key.key }),
      'INSUFFICIENT_SCOPE',
      ['createApiKey'],
    );
    expectError(
      await graphql(app, 'mutation($u: Int!) { createApiKey(userId: $u, input: { name: "n", scopes: ["root"] }) { key } }', { u: user.id }, { token: user.token }),
      'BAD_USER_INPUT',
      ['createApiKey'],
    );
    const revoked = await graphql(app, 'mutation($u: Int!, $id: Int!) { revokeApiKey(userId: $u, id: $id) }', { u: user.id, id: key.id }, { token: user.token });
    expect(revoked.body.data).toEqual({ revokeApiKey: true });
    expectProblem(await post(key.key), 401, 'UNAUTHENTICATED');
  });

  describe('creating a key needs a token less than 5 minutes old, or the current password', () => {
    const mutation = 'mutation($u: Int!, $i: CreateApiKeyInput!) { createApiKey(userId: $u, input: $i) { id key } }';

    it('REST: an older token alone is 400 naming currentPassword; with it 201; a wrong one 403; a fresh token alone 201', async () => {
      const user = await newUser();
      const old = tokenIssuedAgo(user.id, 6 * 60);
      const refused = await createKey(user.id, old, { name: 'Old token', scopes: ['read'] });
      expectProblem(refused, 400, 'BAD_USER_INPUT');
      expect(errorFields(refused)).toEqual(['currentPassword']);
      expectProblem(await createKey(user.id, old, { name: 'Old token', scopes: ['read'], currentPassword: 'not-my-password' }), 403, 'FORBIDDEN');
      const created = await createKey(user.id, old, { name: 'Old token', scopes: ['write'], currentPassword: user.password }).expect(201);
      await post(created.body.key as string).expect(201);
      await createKey(user.id, tokenIssuedAgo(user.id, 4 * 60), { name: 'Fresh token', scopes: ['read'] }).expect(201);
      expect((await http().get(`/users/${user.id}/api-keys`).set(bearer(user.token)).expect(200)).body).toHaveLength(2);
    });

    it('GraphQL: the same through CreateApiKeyInput.currentPassword', async () => {
      const user = await newUser();
      const old = tokenIssuedAgo(user.id, 10 * 60);
      expectError(await graphql(app, mutation, { u: user.id, i: { name: 'g', scopes: ['read'] } }, { token: old }), 'BAD_USER_INPUT', ['createApiKey']);
      expectError(await graphql(app, mutation, { u: user.id, i: { name: 'g', scopes: ['read'], currentPassword: 'wrong-password' } }, { token: old }), 'FORBIDDEN', ['createApiKey']);
      const created = await graphql(app, mutation, { u: user.id, i: { name: 'g', scopes: ['read'], currentPassword: user.password } }, { token: old });
      expect(created.body.data?.createApiKey).toMatchObject({ key: expect.stringMatching(/^blog_/) });
      expect((await graphql(app, mutation, { u: user.id, i: { name: 'g2', scopes: ['read'] } }, { token: user.token })).body.data?.createApiKey).toBeTruthy();
    });

    it("an admin creating a key for someone else proves their own presence: a fresh token or the admin's password, not the user's", async () => {
      const user = await newUser();
      const adminId = (await graphql(app, '{ me { id } }', undefined, { token: admin })).body.data!.me.id as number;
      const oldAdmin = tokenIssuedAgo(adminId, 6 * 60);
      expectProblem(await createKey(user.id, oldAdmin, { name: 'By admin', scopes: ['read'] }), 400, 'BAD_USER_INPUT');
      expectProblem(await createKey(user.id, oldAdmin, { name: 'By admin', scopes: ['read'], currentPassword: user.password }), 403, 'FORBIDDEN');
      await createKey(user.id, oldAdmin, { name: 'By admin', scopes: ['read'], currentPassword: ADMIN.password }).expect(201);
      await createKey(user.id, await tokenFor(app, ADMIN), { name: 'By admin, fresh', scopes: ['read'] }).expect(201);
    });
  });

  describe('revoking the tokens or changing the password revokes the keys created before', () => {
    /** The key is refused on every door: REST, GraphQL over POST, a new WebSocket (4403) and a new event stream (401). */
    async function expectKeyRefused(key: string): Promise<void> {
      expectProblem(await http().get('/posts?limit=1').set(bearer(key)), 401, 'UNAUTHENTICATED');
      const overPost = await graphql(app, '{ me { id } }', undefined, { token: key });
      expect(overPost.status).toBe(401);
      expectError(overPost, 'UNAUTHENTICATED');
      const socket = wsClient(urls.ws, { token: key });
      clients.push(socket);
      expect((await socket.closed).code).toBe(4403);
      const stream = await rawStream(urls.http, { query: '{ me { id } }' }, bearer(key));
      streams.push(stream);
      expect(stream.response.status).toBe(401);
    }

    /** A WebSocket and an event stream opened with `key`, both subscribed and idle. */
    async function openLive(key: string) {
      const socket = wsClient(urls.ws, { token: key });
      clients.push(socket);
      await socket.connected;
      const subscription = new LiveSubscription(socket.client, 'subscription { postCreated { id } }');
      const stream = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, bearer(key));
      streams.push(stream);
      expect(stream.response.status).toBe(200);
      let ended = false;
      void stream.ended.then(() => (ended = true));
      return { socket, subscription, stream, ended: () => ended };
    }

    it('DELETE /users/{id}/tokens: the keys are 401 on every door, gone from the list; a key created after works', async () => {
      const user = await newUser();
      const writer = await newKey(user.id, user.token, ['read', 'write']);
      const reader = await newKey(user.id, user.token, ['read']);
      await post(writer.key).expect(201);
      await http().delete(`/users/${user.id}/tokens`).set(bearer(user.token)).expect(204);
      await expectKeyRefused(writer.key);
      await expectKeyRefused(reader.key);
      const fresh = await tokenFor(app, { email: user.email, password: user.password });
      expect((await http().get(`/users/${user.id}/api-keys`).set(bearer(fresh)).expect(200)).body).toEqual([]);
      const after = await newKey(user.id, fresh, ['write']);
      await post(after.key).expect(201);
    });

    it('GraphQL revokeTokens (by an admin) revokes the keys too', async () => {
      const user = await newUser();
      const writer = await newKey(user.id, user.token, ['write']);
      const result = await graphql(app, 'mutation($id: Int!) { revokeTokens(userId: $id) }', { id: user.id }, { token: admin });
      expect(result.body.data).toEqual({ revokeTokens: true });
      await expectKeyRefused(writer.key);
    });

    it('a password change (own, REST) revokes the keys; an admin setting it (GraphQL) too', async () => {
      const user = await newUser();
      const writer = await newKey(user.id, user.token, ['write']);
      await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ password: 'second-password', currentPassword: user.password }).expect(200);
      await expectKeyRefused(writer.key);

      const token = await tokenFor(app, { email: user.email, password: 'second-password' });
      const second = await newKey(user.id, token, ['write']);
      await post(second.key).expect(201);
      const update = 'mutation($id: Int!) { updateUser(id: $id, input: { password: "set-by-admin" }) { id } }';
      expect((await graphql(app, update, { id: user.id }, { token: admin })).body.data).toEqual({ updateUser: { id: user.id } });
      await expectKeyRefused(second.key);
    });

    it("a key's open WebSocket closes with 4403 and its event stream ends at once: on the key's DELETE, the user's revocation, a password change", async () => {
      const user = await newUser();
      const revocations: [string, (keyId: number) => Promise<unknown>][] = [
        ['the DELETE of the key', (keyId) => http().delete(`/users/${user.id}/api-keys/${keyId}`).set(bearer(user.token)).expect(204)],
        ['DELETE /users/{id}/tokens', () => http().delete(`/users/${user.id}/tokens`).set(bearer(admin)).expect(204)],
        ['a password change', () => http().patch(`/users/${user.id}`).set(bearer(admin)).send({ password: 'changed-by-admin' }).expect(200)],
      ];
      for (const [how, revoke] of revocations) {
        user.token = await tokenFor(app, { email: user.email, password: user.password });
        const key = await newKey(user.id, user.token, ['read']);
        const live = await openLive(key.key);
        // No further operation on either: the revocation alone closes them.
        await revoke(key.id);
        expect((await live.socket.closed).code, how).toBe(4403);
        await until(`the stream to end after ${how}`, () => live.ended());
        live.subscription.dispose();
      }
    });
  });

  describe('bad input is 400 with the field named', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no name', { scopes: ['read'] }, 'name'],
      ['an empty name', { name: '   ', scopes: ['read'] }, 'name'],
      ['a long name', { name: 'x'.repeat(101), scopes: ['read'] }, 'name'],
      ['no scopes', { name: 'x' }, 'scopes'],
      ['empty scopes', { name: 'x', scopes: [] }, 'scopes'],
      ['an unknown scope', { name: 'x', scopes: ['admin'] }, 'scopes'],
      ['a repeated scope', { name: 'x', scopes: ['read', 'read'] }, 'scopes'],
      ['scopes as a string', { name: 'x', scopes: 'read' }, 'scopes'],
      ['a date without a time zone', { name: 'x', scopes: ['read'], expiresAt: '2099-01-01T00:00:00' }, 'expiresAt'],
      ['a date that is no date', { name: 'x', scopes: ['read'], expiresAt: 'tomorrow' }, 'expiresAt'],
      ['an unknown field', { name: 'x', scopes: ['read'], key: 'blog_mine' }, 'key'],
    ];
    for (const [name, body, field] of cases) {
      it(name, async () => {
        const user = await newUser();
        const response = await createKey(user.id, user.token, body);
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(JSON.stringify(response.body.errors ?? response.body.detail)).toContain(field);
      });
    }
  });
});
