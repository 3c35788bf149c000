import { JwtService } from '@nestjs/jwt';
import sharp from 'sharp';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { useApp } from './support/fixture.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createComment, createPost, createUser } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';

interface Member {
  id: number;
  token: string;
  email: string;
  password: string;
}

interface ExportDocument {
  user: Record<string, unknown>;
  posts: ({ id: number; body: string; revisions: { number: number; postId: number }[] } & Record<string, unknown>)[];
  comments: ({ id: number; authorId: number } & Record<string, unknown>)[];
  media: ({ id: number; uploaderId: number } & Record<string, unknown>)[];
  apiKeys: Record<string, unknown>[];
  externalIdentities: unknown[];
  auditEntries: unknown[];
}

/**
 * A person's data on request (CONTRACT §16, Personal data): GET /users/{id}/export, for the user
 * (a token under 5 minutes old, or X-Current-Password) or an admin; exactly their data, each item
 * as its resource shows it, streamed.
 */
describeEachDatabase('personal data export', (kind) => {
  const app = useApp(kind, { signIn: ['admin', 'editor', 'moderator'], timeout: 60_000 });
  const http = () => request(app.server);
  const exportOf = (id: number, token: string) => http().get(`/users/${id}/export`).set(bearer(token));
  /** One of our tokens for the user, as if signed in `ageS` seconds ago (still valid for an hour). */
  const tokenIssuedAgo = (userId: number, ageS: number) =>
    app.app.get(JwtService, { strict: false }).sign({ sub: String(userId), iat: Math.floor(Date.now() / 1000) - ageS }, { algorithm: 'HS256', expiresIn: 3600 });
  const png = (shade: number) => sharp({ create: { width: 40, height: 30, channels: 3, background: { r: shade, g: 60, b: 40 } } }).png().toBuffer();
  const parsed = (response: request.Response) => JSON.parse(response.text) as ExportDocument;

  describe('who may export', () => {
    let user: Member;
    let other: Member;

    beforeAll(async () => {
      user = await createUser(app);
      other = await createUser(app);
    });

    it('the user with a fresh token, without a password: 200, JSON, an attachment, never cached', async () => {
      const response = await exportOf(user.id, user.token).expect(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-disposition']).toBe(`attachment; filename="user-${user.id}-export.json"`);
      expect(response.headers['cache-status']).toBeUndefined();
      expect(parsed(response).user).toMatchObject({ id: user.id, email: user.email });
    });

    it('HEAD: the same checks and headers, no body', async () => {
      const head = await http().head(`/users/${user.id}/export`).set(bearer(user.token)).expect(200);
      expect(head.headers['content-disposition']).toBe(`attachment; filename="user-${user.id}-export.json"`);
      expect(head.headers['cache-control']).toBe('no-store');
      expect(head.text ?? '').toBe('');
      expect((await http().head(`/users/${user.id}/export`).set(bearer(other.token))).status).toBe(403);
    });

    it('the user with a token over 5 minutes old: 400 naming X-Current-Password without it, 403 when wrong, 200 when right', async () => {
      const old = tokenIssuedAgo(user.id, 600);
      const missing = await exportOf(user.id, old);
      expect(expectProblem(missing, 400, 'BAD_USER_INPUT').detail).toContain('X-Current-Password');
      expect(errorFields(missing)).toEqual(['X-Current-Password']);
      expectProblem(await exportOf(user.id, old).set('X-Current-Password', 'not-the-password'), 403, 'FORBIDDEN');
      expectProblem(await exportOf(user.id, old).set('X-Current-Password', ''), 403, 'FORBIDDEN');
      const response = await exportOf(user.id, old).set('X-Current-Password', user.password).expect(200);
      expect(parsed(response).user.id).toBe(user.id);
    });

    it('an admin, without any password (even with an old token); 404 for a user who does not exist', async () => {
      const adminId = expectData(await graphql(app, '{ me { id } }', undefined, { token: app.tokens.admin })).me.id as number;
      const old = tokenIssuedAgo(adminId, 600);
      expect(parsed(await exportOf(user.id, app.tokens.admin).expect(200)).user.id).toBe(user.id);
      expect(parsed(await exportOf(user.id, old).expect(200)).user.id).toBe(user.id);
      expectProblem(await exportOf(999_999_999, app.tokens.admin), 404, 'NOT_FOUND');
    });

    it('nobody else: another user, an editor, a moderator are 403 FORBIDDEN (the user is public), the anonymous 401', async () => {
      for (const token of [other.token, app.tokens.editor, app.tokens.moderator]) {
        expectProblem(await exportOf(user.id, token), 403, 'FORBIDDEN');
        expectProblem(await exportOf(user.id, token).set('X-Current-Password', user.password), 403, 'FORBIDDEN');
      }
      expectProblem(await http().get(`/users/${user.id}/export`), 401, 'UNAUTHENTICATED');
    });

    it('never with an API key, whatever its scopes (403 INSUFFICIENT_SCOPE), even with the password', async () => {
      for (const scopes of [['read'], ['read', 'write']]) {
        const key = (await http().post(`/users/${user.id}/api-keys`).set(bearer(user.token)).send({ name: 'k', scopes }).expect(201)).body.key as string;
        expectProblem(await exportOf(user.id, key), 403, 'INSUFFICIENT_SCOPE');
        expectProblem(await exportOf(user.id, key).set('X-Current-Password', user.password), 403, 'INSUFFICIENT_SCOPE');
      }
    });
  });

  describe('what it holds', () => {
    let alice: Member;
    let bob: Member;
    const mine = { posts: [] as number[], comments: [] as number[], media: [] as number[] };
    const bobsPosts: number[] = [];
    let bobsDraftId: number;
    let bobsPost: number;
    let hiddenCommentId: number;
    let secret: string;
    let document: ExportDocument;
    let text: string;

    beforeAll(async () => {
      alice = await createUser(app);
      bob = await createUser(app);
      // The same words for both, each with a mark of their own.
      for (const [member, mark, ids] of [[alice, 'alice-mark', mine.posts], [bob, 'bob-mark', bobsPosts]] as const) {
        const published = await createPost(app, member.token, { title: 'Shared words', body: `Shared words, published ${mark}` });
        const draft = await createPost(app, member.token, { title: 'Shared words', body: `Shared words, drafted ${mark}`, status: 'draft' });
        const scheduled = await createPost(app, member.token, { title: 'Shared words', body: `Shared words, later ${mark}`, status: 'scheduled', publishAt: new Date(Date.now() + 86_400_000).toISOString() });
        const trashed = await createPost(app, member.token, { title: 'Shared words', body: `Shared words, trashed ${mark}` });
        await http().patch(`/posts/${published.id}`).set(bearer(member.token)).send({ body: `Shared words, changed ${mark}` }).expect(200);
        await http().delete(`/posts/${trashed.id}`).set(bearer(member.token)).expect(204);
        ids.push(published.id, draft.id, scheduled.id, trashed.id);
        if (member === bob) bobsDraftId = draft.id;
      }
      const [alicesPost] = mine.posts;
      bobsPost = (await http().get(`/users/${bob.id}/posts?limit=1`).expect(200)).body[0].id as number;
      // Theirs on each other's posts and their own; one of hers hidden by a moderator.
      mine.comments.push((await createComment(app, alice.token, bobsPost, 'Shared words, alice-mark on his')).id);
      mine.comments.push((await createComment(app, alice.token, alicesPost, 'Shared words, alice-mark on hers')).id);
      hiddenCommentId = mine.comments[1];
      await http().patch(`/comments/${hiddenCommentId}`).set(bearer(app.tokens.moderator)).send({ status: 'hidden' }).expect(200);
      await createComment(app, bob.token, alicesPost, 'Shared words, bob-mark on hers');
      await createComment(app, bob.token, bobsPost, 'Shared words, bob-mark on his');
      mine.media.push((await http().post('/media').set(bearer(alice.token)).attach('file', await png(10), 'alice.png').expect(201)).body.id as number);
      await http().post('/media').set(bearer(bob.token)).attach('file', await png(20), 'bob.png').expect(201);
      secret = (await http().post(`/users/${alice.id}/api-keys`).set(bearer(alice.token)).send({ name: 'Alice CI', scopes: ['read'] }).expect(201)).body.key as string;
      await http().post(`/users/${bob.id}/api-keys`).set(bearer(bob.token)).send({ name: 'Bob CI', scopes: ['read'] }).expect(201);

      const response = await exportOf(alice.id, alice.token).expect(200);
      text = response.text;
      document = parsed(response);
    }, 60_000);

    it('is one document with every key of the contract', () => {
      expect(Object.keys(document)).toEqual(['user', 'posts', 'comments', 'media', 'apiKeys', 'externalIdentities', 'auditEntries']);
      expect(document.externalIdentities).toEqual([]);
    });

    it("the audit entries whose actor or resource is them, oldest first, in the log's shape; none of another's, and the export itself last", async () => {
      const sql = (text: string, params: unknown[]) => app.app.get(DataSource).query<{ id: number | string }[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
      const theirs = await sql('SELECT id FROM audit_entries WHERE actor_id = $1 OR (resource_type = $2 AND resource_id = $3) ORDER BY id', [alice.id, 'user', alice.id]);
      const entries = document.auditEntries as { id: number; actor: { userId: number | null; credential: string | null }; action: string; resource: { type: string; id: number | null } }[];
      expect(entries.map((entry) => entry.id)).toEqual(theirs.map((row) => Number(row.id)));
      for (const entry of entries) {
        expect(Object.keys(entry)).toEqual(['id', 'at', 'actor', 'action', 'resource', 'changes', 'ip', 'userAgent', 'requestId', 'traceId']);
        expect(entry.actor.userId === alice.id || (entry.resource.type === 'user' && entry.resource.id === alice.id)).toBe(true);
      }
      const actions = entries.map((entry) => entry.action);
      expect(actions[0]).toBe('users.create');
      expect(actions).toContain('auth.signIn');
      expect(actions.filter((action) => action === 'posts.create')).toHaveLength(4);
      expect(actions).toContain('apiKeys.create');
      expect(entries.at(-1)).toMatchObject({ action: 'users.export', actor: { userId: alice.id, credential: 'token' }, resource: { type: 'user', id: alice.id } });
      expect(entries.some((entry) => entry.actor.userId === bob.id || (entry.resource.type === 'user' && entry.resource.id === bob.id))).toBe(false);
      expect(text).not.toContain(secret);
    });

    it('the profile as GET /users/{id} shows it to the user themselves, e-mail included', async () => {
      const shown = (await http().get(`/users/${alice.id}`).set(bearer(alice.token)).expect(200)).body;
      expect(document.user).toEqual(shown);
      expect(document.user.email).toBe(alice.email);
    });

    it('every post of theirs in every state, as their author reads it, each with all its revisions (oldest first); none of another', async () => {
      expect(document.posts.map((post) => post.id)).toEqual([...mine.posts].sort((a, b) => a - b));
      for (const post of document.posts) {
        const { revisions, ...fields } = post;
        expect(fields).toEqual((await http().get(`/posts/${post.id}`).set(bearer(alice.token)).expect(200)).body);
        const listed = (await http().get(`/posts/${post.id}/revisions?limit=100`).set(bearer(alice.token)).expect(200)).body as unknown[];
        expect(revisions).toEqual([...listed].reverse());
      }
      expect(document.posts.map((post) => post.status).sort()).toEqual(['draft', 'published', 'scheduled', 'trashed']);
      expect(document.posts.find((post) => post.status === 'published')!.revisions.map((revision) => revision.number)).toEqual([1, 2]);
    });

    it('every comment they wrote (a hidden one too, on anyone\'s post), none written by another on their posts', async () => {
      expect(document.comments.map((comment) => comment.id)).toEqual(mine.comments);
      expect(document.comments.find((comment) => comment.id === hiddenCommentId)!.status).toBe('hidden');
      const [visible] = document.comments;
      expect(visible).toEqual((await http().get(`/comments/${visible.id}`).set(bearer(alice.token)).expect(200)).body);
    });

    it('the metadata of the media they uploaded, as GET /media/{id} shows it, no bytes; none of another', async () => {
      expect(document.media.map((media) => media.id)).toEqual(mine.media);
      expect(document.media[0]).toEqual((await http().get(`/media/${mine.media[0]}`).set(bearer(alice.token)).expect(200)).body);
    });

    it('their API keys as GET /users/{id}/api-keys lists them, without any secret', async () => {
      expect(document.apiKeys).toEqual((await http().get(`/users/${alice.id}/api-keys`).set(bearer(alice.token)).expect(200)).body);
      expect(document.apiKeys.map((key) => key.name)).toEqual(['Alice CI']);
      const db = app.app.get(DataSource);
      const hashes = (await db.query('SELECT key_hash FROM api_keys')) as { key_hash: string }[];
      const [stored] = (await db.query(`SELECT password_hash FROM users WHERE id = ${alice.id}`)) as { password_hash: string }[];
      for (const leaked of [secret, secret.slice(5), stored.password_hash, alice.password, ...hashes.map((row) => row.key_hash)]) expect(text).not.toContain(leaked);
      expect(text).not.toMatch(/blog_[A-Za-z0-9_-]{20}|scrypt\$|password_?hash|keyHash/i);
    });

    it('nothing of another user anywhere in it: not their draft with the same words, comments, media, keys or e-mail', () => {
      expect(text).not.toContain('bob-mark');
      expect(text).not.toContain('Bob CI');
      expect(text).not.toContain(bob.email);
      // Her comment on his published post links to it; nothing else of his is named.
      for (const id of bobsPosts.filter((id) => id !== bobsPost)) expect(text).not.toContain(`"/posts/${id}"`);
      expect(bobsPosts).toContain(bobsDraftId);
      expect(text).toContain('alice-mark');
    });
  });

  it('streams a large record: 300 posts, one with 1,200 revisions, read page by page, as one valid document', async () => {
    const writer = await createUser(app);
    const ids: number[] = [];
    for (let start = 0; start < 300; start += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, index) => createPost(app, writer.token, { title: `Many ${start + index}`, body: 'Many', status: 'draft' })));
      ids.push(...batch.map((post) => post.id));
    }
    // Revisions written straight into the table (a PATCH each would take long): numbers 2..1201 of the first post.
    const db = app.app.get(DataSource);
    const first = Math.min(...ids);
    const at = new Date().toISOString();
    for (let start = 2; start <= 1201; start += 200) {
      const rows = Array.from({ length: 200 }, (_, index) => `(${first}, ${start + index}, 'Many', 'Revised', 'draft', ${writer.id}, '${at}')`);
      await db.query(`INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) VALUES ${rows.join(', ')}`);
    }
    const response = await exportOf(writer.id, writer.token).expect(200);
    // Streamed: written as it is read, so its length is not known up front.
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers['transfer-encoding']).toBe('chunked');
    const document = parsed(response);
    expect(document.posts.map((post) => post.id)).toEqual([...ids].sort((a, b) => a - b));
    expect(document.posts[0].revisions.map((revision) => revision.number)).toEqual(Array.from({ length: 1201 }, (_, index) => index + 1));
    expect(document.posts[0].revisions.every((revision) => revision.postId === first)).toBe(true);
    for (const post of document.posts.slice(1)) expect(post.revisions.map((revision) => revision.number)).toEqual([1]);
  }, 120_000);
});
