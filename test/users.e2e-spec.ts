import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { errorFields, expectNoLeaks, expectProblem } from './support/problems.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { ROLES } from '../src/common/actor.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const USER_KEYS = ['_links', 'avatarUrl', 'createdAt', 'email', 'id', 'name', 'role', 'updatedAt'];

let sequence = 0;
/** A unique, valid new-user body. */
function newUser(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    name: `User ${sequence}`,
    email: `user${sequence}.${Date.now()}@example.com`,
    password: `password-${sequence}`,
    ...overrides,
  };
}

/** Asserts a user representation: exact keys, types, links, and no secret; `commentsBlocked` only for the user themselves (or a blocker). */
function expectUser(body: Record<string, unknown>, private_ = false): void {
  expect(Object.keys(body).sort()).toEqual(private_ ? [...USER_KEYS, 'commentsBlocked'].sort() : USER_KEYS);
  if (private_) expect(body.commentsBlocked).toBe(false);
  expect(body.id).toEqual(expect.any(Number));
  expect(Number.isInteger(body.id)).toBe(true);
  expect(body.name).toEqual(expect.any(String));
  expect(body.email).toEqual(expect.any(String));
  expect(body.avatarUrl === null || typeof body.avatarUrl === 'string').toBe(true);
  expect(ROLES).toContain(body.role);
  expect(body.createdAt).toMatch(ISO);
  expect(body.updatedAt).toMatch(ISO);
  expect(body._links).toEqual({ self: { href: `/users/${body.id}` }, posts: { href: `/users/${body.id}/posts` } });
}

function expectNoSecrets(response: Response): void {
  expect(response.text).not.toMatch(/password/i);
  expectNoLeaks(response.text);
}

/** The `rel="next"` target of a Link header, or null. */
function nextLink(response: Response): string | null {
  const header = response.headers.link as string | undefined;
  if (!header) return null;
  const match = /<([^>]+)>;\s*rel="next"/.exec(header);
  return match ? match[1] : null;
}

describeEachDatabase('users', (kind) => {
  const app = useApp(kind);
  const http = () => request(app.server);

  /** Creates a user and returns its representation and a token. */
  async function createSignedInUser(overrides: Record<string, unknown> = {}) {
    const input = newUser(overrides);
    const created = await http().post('/users').send(input).expect(201);
    const token = await tokenFor(app, { email: input.email, password: input.password });
    return { user: created.body as { id: number; email: string; name: string }, token, input };
  }

  describe('POST /users', () => {
    it('creates a user: 201, Location, the representation, no password', async () => {
      const input = newUser({ avatarUrl: 'https://example.com/me.png' });
      const before = Date.now();
      const response = await http().post('/users').send(input).expect(201);
      const after = Date.now();
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expectUser(response.body);
      expect(response.headers.location).toBe(`/users/${response.body.id}`);
      expect(response.body).toMatchObject({
        name: input.name,
        email: input.email,
        avatarUrl: 'https://example.com/me.png',
        role: 'author',
      });
      expect(response.body.createdAt).toBe(response.body.updatedAt);
      // Stamped by the server while it handled the request (in UTC, to the millisecond).
      expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(response.body.createdAt)).toBeLessThanOrEqual(after);
      expectNoSecrets(response);

      const fetched = await http().get(response.headers.location).expect(200);
      expect(fetched.body).toEqual(response.body);
      expectNoSecrets(fetched);
    });

    it('stores the e-mail lower-cased and trims name and e-mail; avatarUrl defaults to null', async () => {
      const input = newUser();
      const response = await http()
        .post('/users')
        .send({ ...input, name: `  ${input.name}  `, email: `  ${input.email.toUpperCase()} ` })
        .expect(201);
      expect(response.body.email).toBe(input.email.toLowerCase());
      expect(response.body.name).toBe(input.name);
      expect(response.body.avatarUrl).toBeNull();
    });

    it('accepts avatarUrl null, http URLs, and the boundary lengths', async () => {
      await http().post('/users').send(newUser({ avatarUrl: null })).expect(201);
      await http().post('/users').send(newUser({ avatarUrl: 'http://localhost:8080/a.png' })).expect(201);
      const prefix = 'https://example.com/';
      const url2048 = prefix + 'a'.repeat(2048 - prefix.length);
      const long = await http()
        .post('/users')
        .send(newUser({ name: 'n'.repeat(100), password: 'p'.repeat(128), avatarUrl: url2048 }))
        .expect(201);
      expect(long.body.name).toHaveLength(100);
      expect(long.body.avatarUrl).toBe(url2048);
      const short = await http().post('/users').send(newUser({ name: 'N', password: '12345678' })).expect(201);
      expect(short.body.name).toBe('N');
    });

    it('refuses a duplicate e-mail, in any letter case, with 409', async () => {
      const input = newUser();
      await http().post('/users').send(input).expect(201);
      expectProblem(await http().post('/users').send({ ...input, name: 'Other' }), 409, 'CONFLICT');
      const upper = await http().post('/users').send({ ...newUser(), email: input.email.toUpperCase() });
      expectProblem(upper, 409, 'CONFLICT');
      const demo = await http().post('/users').send({ ...newUser(), email: 'ALICE@Example.com' });
      expectProblem(demo, 409, 'CONFLICT');
      expect(demo.text).not.toContain(input.password);
    });

    const invalid: [string, string, Record<string, unknown>][] = [
      ['name missing', 'name', { name: undefined }],
      ['name empty', 'name', { name: '' }],
      ['name only spaces', 'name', { name: '   ' }],
      ['name of 101 characters', 'name', { name: 'n'.repeat(101) }],
      ['name a number', 'name', { name: 42 }],
      ['name null', 'name', { name: null }],
      ['email missing', 'email', { email: undefined }],
      ['email not an address', 'email', { email: 'not-an-address' }],
      ['email without domain', 'email', { email: 'someone@' }],
      ['email an array', 'email', { email: ['a@example.com'] }],
      ['password missing', 'password', { password: undefined }],
      ['password of 7 characters', 'password', { password: '1234567' }],
      ['password of 129 characters', 'password', { password: 'p'.repeat(129) }],
      ['password a number', 'password', { password: 123456789 }],
      ['avatarUrl ftp', 'avatarUrl', { avatarUrl: 'ftp://example.com/a.png' }],
      ['avatarUrl javascript', 'avatarUrl', { avatarUrl: 'javascript:alert(1)' }],
      ['avatarUrl not a URL', 'avatarUrl', { avatarUrl: 'me.png' }],
      ['avatarUrl of 2049 characters', 'avatarUrl', { avatarUrl: 'https://example.com/' + 'a'.repeat(2049 - 20) }],
      ['avatarUrl a number', 'avatarUrl', { avatarUrl: 7 }],
      ['role (read-only)', 'role', { role: 'admin' }],
      ['id (read-only)', 'id', { id: 1 }],
      ['createdAt (read-only)', 'createdAt', { createdAt: '2020-01-01T00:00:00.000Z' }],
      ['an unknown field', 'nickname', { nickname: 'x' }],
    ];
    it.each(invalid)('400 for %s, naming the field', async (_case, field, overrides) => {
      const input = newUser(overrides);
      const response = await http().post('/users').send(input);
      const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response)).toContain(field);
      for (const error of problem.errors ?? []) expect(error.message).toEqual(expect.any(String));
      if (typeof input.password === 'string') expect(response.text).not.toContain(input.password);
      // Nothing was created.
      if (typeof input.email === 'string' && field !== 'email') {
        const list = await http().get('/users?limit=100').expect(200);
        expect(list.body.map((u: { email: string }) => u.email)).not.toContain(input.email);
      }
    });

    it('400 for a body that is not an object', async () => {
      for (const body of ['[]', '"text"', '42', 'null']) {
        const response = await http().post('/users').set('content-type', 'application/json').send(body);
        expectProblem(response, 400, 'BAD_USER_INPUT');
      }
    });

    it('the created user can sign in', async () => {
      const { token, user } = await createSignedInUser();
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const patched = await http().patch(`/users/${user.id}`).set(bearer(token)).send({ name: 'Signed In' }).expect(200);
      expect(patched.body.name).toBe('Signed In');
    });
  });

  describe('GET /users/{id}', () => {
    it('returns a demo user', async () => {
      const response = await http().get('/users/2').expect(200);
      expectUser(response.body);
      expect(response.body).toMatchObject({ id: 2, name: 'Alice Author', email: 'alice@example.com', role: 'author' });
      expectNoSecrets(response);
      const admin = await http().get('/users/1').expect(200);
      expect(admin.body).toMatchObject({ id: 1, email: 'admin@example.com', role: 'admin', avatarUrl: null });
    });

    it.each(['abc', '0', '-1', '1.5', '01', '+1', '0x10', '99999999999', '2147483648', '1e3', '%20'])('400 for id %s', async (id) => {
      const response = await http().get(`/users/${id}`);
      expectProblem(response, 400, 'BAD_USER_INPUT');
    });

    it('404 for an id that does not exist', async () => {
      const response = await http().get('/users/999');
      const problem = expectProblem(response, 404, 'NOT_FOUND');
      expect(problem.instance).toBe('/users/999');
      expectProblem(await http().get('/users/2147483647'), 404, 'NOT_FOUND');
    });
  });

  describe('GET /users', () => {
    it('lists users as a JSON array of representations, in id order', async () => {
      const response = await http().get('/users').expect(200);
      expect(Array.isArray(response.body)).toBe(true);
      expect(response.body.length).toBeGreaterThanOrEqual(3);
      for (const user of response.body) expectUser(user);
      expect(response.body.slice(0, 3).map((u: { email: string }) => u.email)).toEqual([
        'admin@example.com',
        'alice@example.com',
        'bob@example.com',
      ]);
      expectNoSecrets(response);
    });

    it('pages with limit and a Link to the next page that walks every user once', async () => {
      for (let i = 0; i < 4; i += 1) await http().post('/users').send(newUser()).expect(201);
      const all = await http().get('/users?limit=100').expect(200);
      expect(all.headers.link).toBeUndefined();
      const expected = all.body.map((u: { id: number }) => u.id);
      expect(expected.length).toBeGreaterThanOrEqual(7);

      const seen: number[] = [];
      let next: string | null = '/users?limit=2';
      let pages = 0;
      while (next !== null) {
        const page: Response = await http().get(next).expect(200);
        expect(page.body.length).toBeLessThanOrEqual(2);
        expect(page.body.length).toBeGreaterThan(0);
        seen.push(...page.body.map((u: { id: number }) => u.id));
        next = nextLink(page);
        if (next !== null) {
          expect(next).toMatch(/^\/users\?limit=2&cursor=[^&\s]+$/);
          expect(page.body).toHaveLength(2);
        }
        pages += 1;
        expect(pages).toBeLessThanOrEqual(expected.length);
      }
      expect(seen).toEqual(expected);
      expect(new Set(seen).size).toBe(seen.length);
    });

    it('has a next link exactly when more users exist', async () => {
      const total = (await http().get('/users?limit=100').expect(200)).body.length as number;
      const exact = await http().get(`/users?limit=${total}`).expect(200);
      expect(exact.body).toHaveLength(total);
      expect(nextLink(exact)).toBeNull();
      const short = await http().get(`/users?limit=${total - 1}`).expect(200);
      expect(short.body).toHaveLength(total - 1);
      expect(nextLink(short)).not.toBeNull();
      const last = await http().get(nextLink(short)!).expect(200);
      expect(last.body).toHaveLength(1);
      expect(nextLink(last)).toBeNull();
    });

    it('defaults to 20 per page', async () => {
      const response = await http().get('/users').expect(200);
      expect(response.body.length).toBeLessThanOrEqual(20);
    });

    it.each(['0', '101', '-1', 'abc', '1.5', '', '10abc'])('400 for limit=%s', async (limit) => {
      const response = await http().get(`/users?limit=${limit}`);
      const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(problem.detail).toMatch(/limit/);
    });

    it('accepts limit=1 and limit=100', async () => {
      expect((await http().get('/users?limit=1').expect(200)).body).toHaveLength(1);
      await http().get('/users?limit=100').expect(200);
    });

    it.each(['garbage', 'djE6YWJj', 'djE6MA', '%00', 'x'.repeat(300)])('400 for cursor=%s', async (cursor) => {
      const response = await http().get(`/users?cursor=${cursor}`);
      const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(problem.detail).toMatch(/cursor/);
    });

    it('400 for an unknown query parameter', async () => {
      expectProblem(await http().get('/users?offset=10'), 400, 'BAD_USER_INPUT');
    });
  });

  describe('PATCH /users/{id}', () => {
    it('401 without a token, with WWW-Authenticate: Bearer', async () => {
      const response = await http().patch('/users/2').send({ name: 'Nope' });
      expectProblem(response, 401, 'UNAUTHENTICATED');
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect((await http().get('/users/2')).body.name).toBe('Alice Author');
    });

    it('403 as another user, and nothing changes', async () => {
      expectProblem(await http().patch('/users/2').set(bearer(app.tokens.bob)).send({ name: 'Hacked' }), 403, 'FORBIDDEN');
      expect((await http().get('/users/2')).body.name).toBe('Alice Author');
    });

    it('200 as the user themselves: changes name and avatarUrl, bumps updatedAt', async () => {
      const { user, token } = await createSignedInUser();
      const before = (await http().get(`/users/${user.id}`).expect(200)).body;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await http()
        .patch(`/users/${user.id}`)
        .set(bearer(token))
        .send({ name: '  Renamed  ', avatarUrl: 'https://example.com/new.png' })
        .expect(200);
      expectUser(response.body, true);
      expect(response.body).toMatchObject({ id: user.id, name: 'Renamed', avatarUrl: 'https://example.com/new.png', email: user.email });
      expect(response.body.createdAt).toBe(before.createdAt);
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
      expectNoSecrets(response);
      expect((await http().get(`/users/${user.id}`).set(bearer(token))).body).toEqual(response.body);
      const { commentsBlocked, ...publicView } = response.body;
      expect(commentsBlocked).toBe(false);
      expect((await http().get(`/users/${user.id}`)).body).toEqual(publicView);

      const cleared = await http().patch(`/users/${user.id}`).set(bearer(token)).send({ avatarUrl: null }).expect(200);
      expect(cleared.body.avatarUrl).toBeNull();
      expect(cleared.body.name).toBe('Renamed');
    });

    it('200 as an admin on another user', async () => {
      const { user } = await createSignedInUser();
      const response = await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ name: 'By Admin' }).expect(200);
      expect(response.body.name).toBe('By Admin');
    });

    it('role: 403 for a non-admin (even on themselves), works for an admin', async () => {
      const { user, token } = await createSignedInUser();
      expectProblem(await http().patch(`/users/${user.id}`).set(bearer(token)).send({ role: 'admin' }), 403, 'FORBIDDEN');
      expect((await http().get(`/users/${user.id}`)).body.role).toBe('author');

      const promoted = await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'admin' }).expect(200);
      expect(promoted.body.role).toBe('admin');
      // The new admin's existing token now carries admin rights.
      await http().patch('/users/3').set(bearer(token)).send({ name: 'Bob Writer' }).expect(200);
      const demoted = await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'author' }).expect(200);
      expect(demoted.body.role).toBe('author');
      expectProblem(await http().patch('/users/3').set(bearer(token)).send({ name: 'X' }), 403, 'FORBIDDEN');
      expectProblem(
        await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'superuser' }),
        400,
        'BAD_USER_INPUT',
      );
    });

    it('a password change lets the user sign in with the new password only', async () => {
      const { user, token, input } = await createSignedInUser();
      const response = await http()
        .patch(`/users/${user.id}`)
        .set(bearer(token))
        .send({ password: 'brand-new-password', currentPassword: input.password })
        .expect(200);
      expectNoSecrets(response);
      await tokenFor(app, { email: input.email, password: 'brand-new-password' });
      expectProblem(await http().post('/tokens').send({ email: input.email, password: input.password }), 401);
    });

    const invalid: [string, string, Record<string, unknown>][] = [
      ['email (not patchable)', 'email', { email: 'new@example.com' }],
      ['id', 'id', { id: 99 }],
      ['createdAt', 'createdAt', { createdAt: '2020-01-01T00:00:00.000Z' }],
      ['an unknown field', 'nickname', { nickname: 'x' }],
      ['an empty name', 'name', { name: '' }],
      ['a name of 101 characters', 'name', { name: 'n'.repeat(101) }],
      ['a numeric name', 'name', { name: 5 }],
      ['a short password', 'password', { password: 'short' }],
      ['a long password', 'password', { password: 'p'.repeat(129) }],
      ['an ftp avatarUrl', 'avatarUrl', { avatarUrl: 'ftp://example.com/a.png' }],
      ['a boolean avatarUrl', 'avatarUrl', { avatarUrl: true }],
    ];
    it.each(invalid)('400 for %s, and nothing changes', async (_case, field, body) => {
      const before = (await http().get('/users/2').expect(200)).body;
      const response = await http().patch('/users/2').set(bearer(app.tokens.alice)).send(body);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response)).toContain(field);
      expect((await http().get('/users/2').expect(200)).body).toEqual(before);
    });

    it('400 for a bad id, 404 for a missing user (as admin)', async () => {
      expectProblem(await http().patch('/users/abc').set(bearer(app.tokens.admin)).send({ name: 'X' }), 400, 'BAD_USER_INPUT');
      expectProblem(await http().patch('/users/999').set(bearer(app.tokens.admin)).send({ name: 'X' }), 404, 'NOT_FOUND');
    });
  });

  describe('DELETE /users/{id}', () => {
    it('401 without a token, 403 as another user', async () => {
      const { user } = await createSignedInUser();
      expectProblem(await http().delete(`/users/${user.id}`), 401, 'UNAUTHENTICATED');
      expectProblem(await http().delete(`/users/${user.id}`).set(bearer(app.tokens.bob)), 403, 'FORBIDDEN');
      await http().get(`/users/${user.id}`).expect(200);
    });

    it('204 for the user themselves; then 404, and their token no longer works', async () => {
      const { user, token, input } = await createSignedInUser();
      const response = await http().delete(`/users/${user.id}`).set(bearer(token)).expect(204);
      expect(response.text).toBe('');
      expectProblem(await http().get(`/users/${user.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().post('/tokens').send({ email: input.email, password: input.password }), 401);
      expectProblem(await http().delete(`/users/${user.id}`).set(bearer(token)), 401, 'UNAUTHENTICATED');
      // The e-mail is free again.
      await http().post('/users').send({ ...newUser(), email: input.email }).expect(201);
    });

    it('204 for an admin; 404 for a user that does not exist', async () => {
      const { user } = await createSignedInUser();
      await http().delete(`/users/${user.id}`).set(bearer(app.tokens.admin)).expect(204);
      expectProblem(await http().get(`/users/${user.id}`), 404, 'NOT_FOUND');
      expectProblem(await http().delete(`/users/${user.id}`).set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().delete('/users/999').set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
      expectProblem(await http().delete('/users/abc').set(bearer(app.tokens.admin)), 400, 'BAD_USER_INPUT');
    });
  });
});

describeEachDatabase('users: deleting a user deletes their posts and comments', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  async function count(sql: string, params: unknown[] = []): Promise<number> {
    const dataSource = app.app.get(DataSource);
    const rows: { n: number | string }[] = await dataSource.query(sql, params);
    return Number(rows[0].n);
  }

  it('removes the posts they wrote, the comments they wrote and the comments on their posts', async () => {
    const p = kind === 'postgres' ? ['$1', '$2'] : ['?', '?'];
    const alice = 2;
    const postsBefore = await count('SELECT count(*) AS n FROM posts');
    const ownPosts = await count(`SELECT count(*) AS n FROM posts WHERE author_id = ${p[0]}`, [alice]);
    const commentsBefore = await count('SELECT count(*) AS n FROM comments');
    const touched = await count(
      `SELECT count(*) AS n FROM comments WHERE author_id = ${p[0]} OR post_id IN (SELECT id FROM posts WHERE author_id = ${p[1]})`,
      [alice, alice],
    );
    // The demo data: Alice wrote 4 of the 7 posts (2 published, a draft, a scheduled one); 5 of the 14 comments are hers or on her posts.
    expect([postsBefore, ownPosts, commentsBefore, touched]).toEqual([7, 4, 14, 5]);

    const adminToken = await tokenFor(app, ADMIN);
    const aliceToken = await tokenFor(app, ALICE);
    await request(app.server).delete(`/users/${alice}`).set(bearer(adminToken)).expect(204);

    expect(await count(`SELECT count(*) AS n FROM users WHERE id = ${p[0]}`, [alice])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM posts WHERE author_id = ${p[0]}`, [alice])).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM comments WHERE author_id = ${p[0]}`, [alice])).toBe(0);
    expect(await count('SELECT count(*) AS n FROM posts')).toBe(postsBefore - ownPosts);
    expect(await count('SELECT count(*) AS n FROM comments')).toBe(commentsBefore - touched);
    expect(
      await count('SELECT count(*) AS n FROM comments WHERE post_id NOT IN (SELECT id FROM posts)'),
    ).toBe(0);

    expectProblem(await request(app.server).get(`/users/${alice}`), 404, 'NOT_FOUND');
    expectProblem(await request(app.server).patch(`/users/${alice}`).set(bearer(aliceToken)).send({ name: 'Ghost' }), 401);
    const users = await request(app.server).get('/users').expect(200);
    expect(users.body.map((u: { id: number }) => u.id)).toEqual([1, 3, 4, 5]);
  });
});
