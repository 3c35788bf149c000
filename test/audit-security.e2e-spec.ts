import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { useApp } from './support/fixture.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

interface EntryRow {
  id: number | string;
  actor_id: number | null;
  actor_credential: string | null;
  actor_key_id: number | null;
  action: string;
  resource_type: string;
  resource_id: number | null;
  changes: string;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

const COLUMNS = ['id', 'at', 'actor_id', 'actor_credential', 'actor_key_id', 'action', 'resource_type', 'resource_id', 'changes', 'ip', 'user_agent', 'request_id', 'trace_id'];

/** A token's subject: the id of the user it was issued to. */
const subjectOf = (token: string) => Number((JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { sub: string }).sub);

/**
 * Security events and users in the audit log (CONTRACT §16): sign-ins and failed ones, users'
 * changes (one entry per kind), API keys, webhooks, on REST and GraphQL; no password, token, key
 * or secret ever in an entry; a deleted user's name and e-mail erased from every entry.
 */
describeEachDatabase('audit log: security events', (kind) => {
  const app = useApp(kind, {
    // Failures per e-mail per hour: three, so that a sign-in refused by the limits can be seen.
    env: { RESPONSE_CACHE: 'off', WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_ACCOUNT_MAX: '3' },
    signIn: ['admin', 'alice'],
    timeout: 60_000,
  });
  const http = () => request(app.server);
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  const entriesOf = (type: string, id: number) => sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', [type, id]);
  const lastEntry = async () => (await sql<EntryRow>('SELECT * FROM audit_entries ORDER BY id DESC LIMIT 1'))[0];
  const count = async () => Number((await sql<{ n: number | string }>('SELECT COUNT(*) AS n FROM audit_entries'))[0].n);
  /** Every column of every entry as text, in one string. */
  const wholeTable = async () => {
    const rows = await sql<Record<string, string | null>>(`SELECT ${COLUMNS.map((c) => `CAST(${c} AS TEXT) AS ${c}`).join(', ')} FROM audit_entries ORDER BY id`);
    return rows.map((row) => COLUMNS.map((c) => row[c] ?? '').join('\t')).join('\n');
  };
  const changesOf = (entry: EntryRow) => JSON.parse(entry.changes) as Record<string, { from: unknown; to: unknown }>;
  let seq = 0;
  const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(seq += 1)}`;

  /** A new author, signed up over REST, and their token. */
  async function signUp(name = unique('Person'), password = 'first-password-1'): Promise<{ id: number; name: string; email: string; password: string; token: string }> {
    const email = `${unique('user')}@example.com`;
    const created = await http().post('/users').set('user-agent', 'audit-spec/1.0').send({ name, email, password }).expect(201);
    const token = (await http().post('/tokens').send({ email, password }).expect(201)).body.accessToken as string;
    return { id: created.body.id as number, name, email, password, token };
  }

  describe('sign-in', () => {
    it('REST: a sign-in is auth.signIn of the user with a token; a wrong password and an unknown e-mail are auth.signInFailed of nobody, with the e-mail tried and never the password', async () => {
      const user = await signUp();
      const signIns = (await entriesOf('user', user.id)).filter((entry) => entry.action === 'auth.signIn');
      expect(signIns).toHaveLength(1);
      expect(signIns[0]).toMatchObject({ actor_id: user.id, actor_credential: 'token', actor_key_id: null, resource_type: 'user', resource_id: user.id });
      expect(changesOf(signIns[0])).toEqual({});
      expect(signIns[0].ip).toMatch(/127\.0\.0\.1|::1/);

      await http().post('/tokens').set('user-agent', 'guesser/1.0').send({ email: `  ${user.email.toUpperCase()} `, password: 'wrong-password-1' }).expect(401);
      const failed = await lastEntry();
      expect(failed).toMatchObject({ action: 'auth.signInFailed', actor_id: null, actor_credential: null, actor_key_id: null, resource_type: 'user', resource_id: user.id, user_agent: 'guesser/1.0' });
      expect(changesOf(failed)).toEqual({ email: { from: null, to: user.email } });
      expect(failed.changes).not.toContain('wrong-password-1');

      const nobody = `${'n'.repeat(300)}@example.com`;
      await http().post('/tokens').send({ email: nobody, password: 'wrong-password-2' }).expect(401);
      const unknown = await lastEntry();
      expect(unknown).toMatchObject({ action: 'auth.signInFailed', actor_id: null, actor_credential: null, resource_type: 'user', resource_id: null });
      expect(changesOf(unknown)).toEqual({ email: { from: null, to: nobody.slice(0, 254) } });
    });

    it('GraphQL: createToken records auth.signIn, and auth.signInFailed when refused', async () => {
      const user = await signUp();
      const mutation = 'mutation($input: CreateTokenInput!) { createToken(input: $input) { accessToken } }';
      const token = expectData(await graphql(app, mutation, { input: { email: user.email, password: user.password } })).createToken.accessToken as string;
      expect(subjectOf(token)).toBe(user.id);
      expect(await lastEntry()).toMatchObject({ action: 'auth.signIn', actor_id: user.id, actor_credential: 'token', resource_id: user.id });
      expectError(await graphql(app, mutation, { input: { email: user.email, password: 'not-the-password' } }), 'UNAUTHENTICATED', ['createToken']);
      const failed = await lastEntry();
      expect(failed).toMatchObject({ action: 'auth.signInFailed', actor_id: null, actor_credential: null, resource_id: user.id });
      expect(changesOf(failed)).toEqual({ email: { from: null, to: user.email } });
    });

    it('a sign-in refused by the limits (429) has no entry: the failures before it do', async () => {
      const user = await signUp();
      for (let i = 0; i < 3; i += 1) await http().post('/tokens').send({ email: user.email, password: `wrong-password-${i}` }).expect(401);
      const before = await count();
      await http().post('/tokens').send({ email: user.email, password: user.password }).expect(429);
      expect(await count()).toBe(before);
      expect((await entriesOf('user', user.id)).filter((entry) => entry.action === 'auth.signInFailed')).toHaveLength(3);
    });
  });

  describe('users', () => {
    it('a sign-up is users.create of nobody, over REST and GraphQL', async () => {
      const user = await signUp('Sign Up Sam');
      const [created] = await entriesOf('user', user.id);
      expect(created).toMatchObject({ action: 'users.create', actor_id: null, actor_credential: null, resource_type: 'user', resource_id: user.id });
      expect(changesOf(created)).toEqual({ name: { from: null, to: 'Sign Up Sam' }, email: { from: null, to: user.email }, role: { from: null, to: 'author' } });
      expect(created.changes).not.toContain(user.password);

      const email = `${unique('gql')}@example.com`;
      const result = expectData(await graphql(app, 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', { input: { name: 'Graph Gina', email, password: 'graph-password-1' } }));
      const [viaGraphql] = await entriesOf('user', Number(result.createUser.id));
      expect(viaGraphql).toMatchObject({ action: 'users.create', actor_id: null, actor_credential: null });
      expect(changesOf(viaGraphql)).toMatchObject({ name: { from: null, to: 'Graph Gina' }, email: { from: null, to: email } });
    });

    it('REST: one PATCH of several kinds writes one entry per kind; a password change is named, never valued', async () => {
      const user = await signUp('Before Name');
      const admin = subjectOf(app.tokens.admin);
      const since = await count();
      await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ name: 'After Name', role: 'editor', avatarUrl: 'https://img.example.com/a.png' }).expect(200);
      const [profile, role] = (await entriesOf('user', user.id)).slice(-2);
      expect(await count()).toBe(since + 2);
      expect(profile).toMatchObject({ action: 'users.update', actor_id: admin, actor_credential: 'token' });
      expect(changesOf(profile)).toEqual({ name: { from: 'Before Name', to: 'After Name' }, avatarUrl: { from: null, to: 'https://img.example.com/a.png' } });
      expect(role).toMatchObject({ action: 'users.setRole', actor_id: admin });
      expect(changesOf(role)).toEqual({ role: { from: 'author', to: 'editor' } });

      await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ password: 'second-password-2', currentPassword: user.password }).expect(200);
      const changed = await lastEntry();
      expect(changed).toMatchObject({ action: 'users.changePassword', actor_id: user.id, resource_id: user.id });
      expect(changesOf(changed)).toEqual({ password: { from: '[redacted]', to: '[redacted]' } });

      // The same name again changes nothing: no entry.
      const token = (await http().post('/tokens').send({ email: user.email, password: 'second-password-2' }).expect(201)).body.accessToken as string;
      const unchanged = await count();
      await http().patch(`/users/${user.id}`).set(bearer(token)).send({ name: 'After Name' }).expect(200);
      expect(await count()).toBe(unchanged);
    });

    it('REST: blocking and unblocking a commenter are users.block and users.unblock', async () => {
      const user = await signUp();
      await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ commentsBlocked: true }).expect(200);
      const blocked = await lastEntry();
      expect(blocked).toMatchObject({ action: 'users.block', actor_id: subjectOf(app.tokens.admin), resource_id: user.id });
      expect(changesOf(blocked)).toEqual({ commentsBlocked: { from: false, to: true } });
      await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ commentsBlocked: false }).expect(200);
      const unblocked = await lastEntry();
      expect(unblocked).toMatchObject({ action: 'users.unblock', resource_id: user.id });
      expect(changesOf(unblocked)).toEqual({ commentsBlocked: { from: true, to: false } });
    });

    it('GraphQL: updateUser (name and role: two entries), revokeTokens and deleteUser are recorded', async () => {
      const user = await signUp('Graph Before');
      const update = 'mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }';
      expectData(await graphql(app, update, { id: user.id, input: { name: 'Graph After', role: 'MODERATOR' } }, { token: app.tokens.admin }));
      const [profile, role] = (await entriesOf('user', user.id)).slice(-2);
      expect(profile).toMatchObject({ action: 'users.update', actor_id: subjectOf(app.tokens.admin) });
      expect(changesOf(profile)).toEqual({ name: { from: 'Graph Before', to: 'Graph After' } });
      expect(changesOf(role)).toEqual({ role: { from: 'author', to: 'moderator' } });

      expectData(await graphql(app, 'mutation($id: Int!) { revokeTokens(userId: $id) }', { id: user.id }, { token: user.token }));
      expect(await lastEntry()).toMatchObject({ action: 'users.signOutEverywhere', actor_id: user.id, actor_credential: 'token', resource_id: user.id });

      expectData(await graphql(app, 'mutation($id: Int!) { deleteUser(id: $id) }', { id: user.id }, { token: app.tokens.admin }));
      const deleted = await lastEntry();
      expect(deleted).toMatchObject({ action: 'users.delete', actor_id: subjectOf(app.tokens.admin), resource_type: 'user', resource_id: user.id });
      expect(changesOf(deleted)).toEqual({ role: { from: 'moderator', to: null } });
    });

    it('REST: signing out everywhere and deleting a user are recorded', async () => {
      const user = await signUp();
      await http().delete(`/users/${user.id}/tokens`).set(bearer(user.token)).expect(204);
      expect(await lastEntry()).toMatchObject({ action: 'users.signOutEverywhere', actor_id: user.id, resource_id: user.id });
      await http().delete(`/users/${user.id}`).set(bearer(app.tokens.admin)).expect(204);
      expect(await lastEntry()).toMatchObject({ action: 'users.delete', actor_id: subjectOf(app.tokens.admin), resource_id: user.id });
    });

    it('a refused change leaves no entry (a wrong current password, the last admin)', async () => {
      const user = await signUp();
      const before = await count();
      await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ password: 'another-password', currentPassword: 'not-it-at-all' }).expect(403);
      await http().patch(`/users/${subjectOf(app.tokens.admin)}`).set(bearer(app.tokens.admin)).send({ role: 'author' }).expect(409);
      expect(await count()).toBe(before);
    });
  });

  describe('API keys and webhooks', () => {
    it('REST and GraphQL: apiKeys.create (name, scopes, expiresAt; never the key) and apiKeys.revoke', async () => {
      const alice = subjectOf(app.tokens.alice);
      const expiresAt = '2031-01-01T00:00:00.000Z';
      const created = await http().post(`/users/${alice}/api-keys`).set(bearer(app.tokens.alice)).send({ name: 'CI key', scopes: ['write', 'read'], expiresAt }).expect(201);
      const [entry] = await entriesOf('apiKey', created.body.id as number);
      expect(entry).toMatchObject({ action: 'apiKeys.create', actor_id: alice, actor_credential: 'token', resource_type: 'apiKey' });
      expect(changesOf(entry)).toEqual({ userId: { from: null, to: alice }, name: { from: null, to: 'CI key' }, scopes: { from: null, to: ['read', 'write'] }, expiresAt: { from: null, to: expiresAt } });
      expect(entry.changes).not.toContain(created.body.key as string);

      // A request with the key: its entries name the key.
      const post = await http().post('/posts').set(bearer(created.body.key as string)).send({ title: 'By key', body: 'b' }).expect(201);
      expect((await entriesOf('post', post.body.id as number))[0]).toMatchObject({ actor_id: alice, actor_credential: 'api-key', actor_key_id: created.body.id });

      await http().delete(`/users/${alice}/api-keys/${created.body.id}`).set(bearer(app.tokens.alice)).expect(204);
      const revoked = await lastEntry();
      expect(revoked).toMatchObject({ action: 'apiKeys.revoke', actor_id: alice, resource_type: 'apiKey', resource_id: created.body.id });
      expect(changesOf(revoked)).toEqual({ name: { from: 'CI key', to: null }, userId: { from: alice, to: null } });

      const viaGraphql = expectData(
        await graphql(app, 'mutation($id: Int!) { createApiKey(userId: $id, input: { name: "Graph key", scopes: ["read"] }) { id key } }', { id: alice }, { token: app.tokens.alice }),
      ).createApiKey;
      const [graphEntry] = await entriesOf('apiKey', Number(viaGraphql.id));
      expect(graphEntry).toMatchObject({ action: 'apiKeys.create', actor_id: alice });
      expect(changesOf(graphEntry)).toMatchObject({ name: { from: null, to: 'Graph key' }, scopes: { from: null, to: ['read'] } });
      expectData(await graphql(app, 'mutation($user: Int!, $id: Int!) { revokeApiKey(userId: $user, id: $id) }', { user: alice, id: Number(viaGraphql.id) }, { token: app.tokens.alice }));
      expect(await lastEntry()).toMatchObject({ action: 'apiKeys.revoke', resource_id: Number(viaGraphql.id) });
    });

    it('REST: webhooks.create, update and delete, the secret named and never valued', async () => {
      const admin = subjectOf(app.tokens.admin);
      const created = await http().post('/webhooks').set(bearer(app.tokens.admin)).send({ url: 'http://127.0.0.1:9/hooks/audit', types: ['POST_CREATED'], description: 'Audit hook' }).expect(201);
      const id = created.body.id as number;
      const [entry] = await entriesOf('webhook', id);
      expect(entry).toMatchObject({ action: 'webhooks.create', actor_id: admin, actor_credential: 'token', resource_type: 'webhook' });
      expect(changesOf(entry)).toEqual({
        url: { from: null, to: 'http://127.0.0.1:9/hooks/audit' },
        types: { from: null, to: ['POST_CREATED'] },
        description: { from: null, to: 'Audit hook' },
        active: { from: null, to: true },
        secret: { from: '[redacted]', to: '[redacted]' },
      });
      expect(entry.changes).not.toContain(created.body.secret as string);

      await http().patch(`/webhooks/${id}`).set(bearer(app.tokens.admin)).send({ active: false, types: ['POST_CREATED', 'POST_UPDATED'] }).expect(200);
      const updated = await lastEntry();
      expect(updated).toMatchObject({ action: 'webhooks.update', resource_id: id });
      expect(changesOf(updated)).toEqual({ types: { from: ['POST_CREATED'], to: ['POST_CREATED', 'POST_UPDATED'] }, active: { from: true, to: false } });

      await http().delete(`/webhooks/${id}`).set(bearer(app.tokens.admin)).expect(204);
      const deleted = await lastEntry();
      expect(deleted).toMatchObject({ action: 'webhooks.delete', resource_id: id });
      expect(changesOf(deleted)).toMatchObject({ url: { from: 'http://127.0.0.1:9/hooks/audit', to: null } });
    });
  });

  it('THE secret test: after every security event, no password, token, API key or webhook secret is anywhere in the table', async () => {
    const secrets: string[] = [];
    const user = await signUp(undefined, 'secret-password-one');
    secrets.push(user.password, user.token);
    await http().post('/tokens').send({ email: user.email, password: 'secret-password-wrong' }).expect(401);
    secrets.push('secret-password-wrong');
    await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ password: 'secret-password-two', currentPassword: user.password }).expect(200);
    secrets.push('secret-password-two');
    const token = (await http().post('/tokens').send({ email: user.email, password: 'secret-password-two' }).expect(201)).body.accessToken as string;
    const viaGraphql = expectData(await graphql(app, 'mutation { createToken(input: { email: "admin@example.com", password: "admin-password" }) { accessToken } }')).createToken.accessToken as string;
    secrets.push(token, viaGraphql, 'admin-password');
    const key = (await http().post(`/users/${user.id}/api-keys`).set(bearer(token)).send({ name: 'Secret test key', scopes: ['read'], currentPassword: 'secret-password-two' }).expect(201)).body.key as string;
    secrets.push(key, key.slice('blog_'.length));
    const webhook = await http().post('/webhooks').set(bearer(app.tokens.admin)).send({ url: 'http://127.0.0.1:9/hooks/secret', types: ['POST_CREATED'] }).expect(201);
    const secret = webhook.body.secret as string;
    secrets.push(secret, secret.slice('whsec_'.length));
    await http().patch(`/webhooks/${webhook.body.id}`).set(bearer(app.tokens.admin)).send({ description: 'changed' }).expect(200);
    await http().delete(`/webhooks/${webhook.body.id}`).set(bearer(app.tokens.admin)).expect(204);
    // Every JWT's signature too, in case one were kept in pieces.
    for (const jwt of [user.token, token, viaGraphql]) secrets.push(jwt.split('.')[2]);

    const table = await wholeTable();
    expect(table).toContain(user.email);
    expect(table).toContain('Secret test key');
    for (const value of secrets) expect(table, `a secret is in audit_entries: ${value.slice(0, 12)}…`).not.toContain(value);
  });

  it("erasure: a deleted user's name and e-mail are in no entry; their entries stay, with their id", async () => {
    const user = await signUp('Erased Erin');
    // Entries naming them as resource and as actor, with their old and new name and their e-mail.
    await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ name: 'Erased Erin Renamed' }).expect(200);
    await http().post('/tokens').send({ email: user.email, password: 'a-wrong-password' }).expect(401);
    await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'editor' }).expect(200);
    await http().post('/posts').set(bearer(user.token)).send({ title: 'A post of theirs', body: 'b' }).expect(201);
    await http().post(`/users/${user.id}/api-keys`).set(bearer(user.token)).send({ name: 'Build key', scopes: ['read'] }).expect(201);
    // Another user's entries are left alone.
    const other = await signUp('Other Olga');
    const before = await sql<EntryRow>('SELECT * FROM audit_entries WHERE actor_id = $1 OR (resource_type = $2 AND resource_id = $3) ORDER BY id', [user.id, 'user', user.id]);
    expect(before.length).toBeGreaterThanOrEqual(7);
    expect(await wholeTable()).toContain(user.email);

    await http().delete(`/users/${user.id}`).set(bearer(app.tokens.admin)).expect(204);
    const table = await wholeTable();
    for (const personal of ['Erased Erin', user.email]) expect(table).not.toContain(personal);
    const after = await sql<EntryRow>('SELECT * FROM audit_entries WHERE actor_id = $1 OR (resource_type = $2 AND resource_id = $3) ORDER BY id', [user.id, 'user', user.id]);
    expect(after.map((entry) => [entry.id, entry.action])).toEqual([...before.map((entry) => [entry.id, entry.action]), [expect.anything(), 'users.delete']]);
    const created = after.find((entry) => entry.action === 'users.create')!;
    expect(changesOf(created)).toEqual({ name: { from: null, to: '[erased]' }, email: { from: null, to: '[erased]' }, role: { from: null, to: 'author' } });
    const renamed = after.find((entry) => entry.action === 'users.update')!;
    expect(changesOf(renamed)).toEqual({ name: { from: '[erased]', to: '[erased]' } });
    // Their post went with them: its entry loses its title (v3 Privacy), and they stay its actor by id.
    const wrote = after.find((entry) => entry.action === 'posts.create')!;
    expect(wrote.actor_id).toBe(user.id);
    expect(changesOf(wrote).title).toEqual({ from: null, to: '[erased]' });
    expect(changesOf(wrote).status).toEqual({ from: null, to: 'published' });
    // A key's name is not theirs: kept.
    expect(changesOf(after.find((entry) => entry.action === 'apiKeys.create')!).name).toEqual({ from: null, to: 'Build key' });
    expect(table).toContain(other.email);
    expect(table).toContain('Other Olga');
  });

  it('erasure and the export page through any number of entries (here 1,100, more than a page of either)', async () => {
    const user = await signUp('Many Entries Mo');
    const changes = JSON.stringify({ name: { from: null, to: user.name }, email: { from: null, to: user.email }, note: { from: null, to: user.name } });
    await sql(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100) INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes) SELECT CURRENT_TIMESTAMP, $1, 'token', 'users.update', 'user', $2, $3 FROM n`,
      [user.id, user.id, changes],
    );
    const exported = await http().get(`/users/${user.id}/export`).set(bearer(user.token)).expect(200);
    const ids = (exported.body.auditEntries as { id: number }[]).map((entry) => entry.id);
    // users.create and auth.signIn, the 1,100, and the export.
    expect(ids).toHaveLength(1103);
    expect(new Set(ids).size).toBe(1103);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));

    await http().delete(`/users/${user.id}`).set(bearer(app.tokens.admin)).expect(204);
    const table = await wholeTable();
    expect(table).not.toContain(user.name);
    expect(table).not.toContain(user.email);
    const erased = await sql<EntryRow>('SELECT * FROM audit_entries WHERE actor_id = $1 ORDER BY id', [user.id]);
    expect(erased).toHaveLength(1102);
    expect(JSON.parse(erased[erased.length - 1].changes)).toEqual({});
    expect(JSON.parse(erased[500].changes)).toEqual({ name: { from: null, to: '[erased]' }, email: { from: null, to: '[erased]' }, note: { from: null, to: '[erased]' } });
  });

  it("the personal data export records users.export and holds the entries whose actor or resource is the user, in the contract's shape", async () => {
    const user = await signUp('Exported Ed');
    await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ name: 'Exported Ed II' }).expect(200);
    const post = await http().post('/posts').set(bearer(user.token)).send({ title: 'Exported post', body: 'b' }).expect(201);
    await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Not theirs', body: 'b' }).expect(201);
    const exported = await http().get(`/users/${user.id}/export`).set(bearer(user.token)).set('x-request-id', 'export-1').expect(200);
    const entries = exported.body.auditEntries as { id: number; at: string; actor: Record<string, unknown>; action: string; resource: { type: string; id: number | null }; changes: object }[];
    expect(entries.map((entry) => entry.action)).toEqual(['users.create', 'auth.signIn', 'users.update', 'posts.create', 'users.export']);
    expect(entries.map((entry) => entry.id)).toEqual([...entries.map((entry) => entry.id)].sort((a, b) => a - b));
    expect(entries[0]).toEqual({
      id: expect.any(Number),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
      actor: { userId: null, credential: null },
      action: 'users.create',
      resource: { type: 'user', id: user.id },
      changes: { name: { from: null, to: 'Exported Ed' }, email: { from: null, to: user.email }, role: { from: null, to: 'author' } },
      ip: expect.stringMatching(/127\.0\.0\.1|::1/),
      userAgent: 'audit-spec/1.0',
      requestId: expect.any(String),
      traceId: null,
    });
    expect(entries[3]).toMatchObject({ actor: { userId: user.id, credential: 'token' }, resource: { type: 'post', id: post.body.id } });
    expect(entries[4]).toMatchObject({ actor: { userId: user.id, credential: 'token' }, resource: { type: 'user', id: user.id }, requestId: 'export-1' });
    // The export itself is recorded.
    expect(await lastEntry()).toMatchObject({ action: 'users.export', actor_id: user.id, resource_id: user.id });
  });
});

/** Single sign-on: a provider's first token creates the user (`users.create`), and its changes are `sso`. And the first admin of ADMIN_EMAIL. */
describeEachDatabase('audit log: single sign-on', (kind) => {
  const ISSUER = 'https://id.test/realms/audit';
  let app: TestApp;
  let jwks: Server;
  let sign: (claims: Record<string, unknown>, subject: string, issuedAt?: number) => Promise<string>;
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'audit-1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`;
    sign = (claims, subject, issuedAt = Math.floor(Date.now() / 1000) - 60) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'audit-1', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience('blog-api')
        .setSubject(subject)
        .setIssuedAt(issuedAt)
        .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
        .sign(pair.privateKey);
    app = await startTestApp(kind, {
      env: { AUTH_JWKS_URL: url, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: 'blog-api', RESPONSE_CACHE: 'off', ADMIN_EMAIL: 'first-admin@example.com', ADMIN_PASSWORD: 'first-admin-password' },
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  it("a first sign-in creates the user as users.create by sso; the token's changes are sso; a new role from the provider is users.setRole", async () => {
    const subject = `sso-${randomBytes(4).toString('hex')}`;
    const email = `${subject}@sso.example.com`;
    const token = await sign({ email, email_verified: true, name: 'Single Sign' }, subject);
    const post = await request(app.server).post('/posts').set(bearer(token)).send({ title: 'Via the provider', body: 'b' }).expect(201);
    const userId = post.body.authorId as number;
    const [created] = await sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', ['user', userId]);
    expect(created).toMatchObject({ action: 'users.create', actor_id: userId, actor_credential: 'sso', actor_key_id: null });
    expect(JSON.parse(created.changes)).toEqual({ name: { from: null, to: 'Single Sign' }, email: { from: null, to: email }, role: { from: null, to: 'author' } });
    const [wrote] = await sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2', ['post', post.body.id]);
    expect(wrote).toMatchObject({ action: 'posts.create', actor_id: userId, actor_credential: 'sso' });

    // A later token with the editor role: the role follows the provider, recorded as the user's own through single sign-on.
    const editor = await sign({ email, email_verified: true, roles: ['editor'] }, subject, Math.floor(Date.now() / 1000) - 5);
    expect(expectData(await graphql(app, '{ me { role } }', undefined, { token: editor })).me.role).toBe('EDITOR');
    const [, setRole] = await sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', ['user', userId]);
    expect(setRole).toMatchObject({ action: 'users.setRole', actor_id: userId, actor_credential: 'sso' });
    expect(JSON.parse(setRole.changes)).toEqual({ role: { from: 'author', to: 'editor' } });
  });

  it('the first admin of ADMIN_EMAIL, created at start-up, is users.create by the system', async () => {
    const [admin] = await sql<{ id: number }>('SELECT id FROM users WHERE email = $1', ['first-admin@example.com']);
    const [created] = await sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', ['user', admin.id]);
    expect(created).toMatchObject({ action: 'users.create', actor_id: null, actor_credential: 'system', ip: null, request_id: null });
    expect(JSON.parse(created.changes)).toMatchObject({ email: { from: null, to: 'first-admin@example.com' }, role: { from: null, to: 'admin' } });
    expect(created.changes).not.toContain('first-admin-password');
  });
});
