import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { createPost } from './support/resources.js';
import { type DemoUser, useApp } from './support/fixture.js';
import { describeEachDatabase } from './support/test-app.js';

interface EntryRow {
  id: number | string;
  at: Date | string;
  actor_id: number | null;
  actor_credential: string | null;
  actor_key_id: number | null;
  action: string;
  resource_type: string;
  resource_id: number | null;
  changes: string;
  request_id: string | null;
}

/** A small solid PNG (no variant is narrower than it, so the worker has nothing to make). */
const png = () => sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();

/**
 * The audit log of content besides posts (CONTRACT §16): tags, comments (and their moderation,
 * one entry per comment of a bulk change) and media, each change on REST and on GraphQL, with
 * who made it (token or API key), what it changed ({field: {from, to}}), and no entry for a
 * change that is refused. COMMENTS_MODERATION=all, so that an edit can put a comment back to pending.
 */
describeEachDatabase('audit log of content', (kind) => {
  let mediaDir: string | undefined;
  const app = useApp(kind, {
    signIn: ['admin', 'alice', 'bob', 'editor', 'moderator'],
    timeout: 60_000,
    get env() {
      mediaDir ??= mkdtempSync(join(tmpdir(), `audit-content-${kind}-`));
      return { RESPONSE_CACHE: 'off', COMMENTS_MODERATION: 'all', MEDIA_DIR: mediaDir, MEDIA_VARIANT_WIDTHS: '16' };
    },
  });
  afterAll(() => (mediaDir ? rm(mediaDir, { recursive: true, force: true }) : undefined));
  const http = () => app.http();
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  const entriesOf = (type: string, id: number) => sql<EntryRow>('SELECT * FROM audit_entries WHERE resource_type = $1 AND resource_id = $2 ORDER BY id', [type, id]);
  const entryCount = async () => Number((await sql<{ n: number | string }>('SELECT COUNT(*) AS n FROM audit_entries'))[0].n);
  const changesOf = (entry: EntryRow) => JSON.parse(entry.changes) as Record<string, { from: unknown; to: unknown }>;
  /** A demo user's id, from their token's subject. */
  const idOf = (user: DemoUser) => Number((JSON.parse(Buffer.from(app.tokens[user].split('.')[1], 'base64url').toString()) as { sub: string }).sub);
  const gql = (query: string, variables: Record<string, unknown>, user: DemoUser) => graphql(app, query, variables, { token: app.tokens[user] });
  /** The last entry of a resource: its action, its actor by their token, and its changes. */
  const lastEntry = async (type: string, id: number) => {
    const entries = await entriesOf(type, id);
    expect(entries.length, `entries of ${type} ${id}`).toBeGreaterThan(0);
    return entries[entries.length - 1];
  };
  const byToken = (user: DemoUser) => ({ actor_id: idOf(user), actor_credential: 'token', actor_key_id: null });
  const upload = async (token: string, fields: Record<string, string> = {}) => {
    let call = http().post('/media').set(bearer(token));
    for (const [field, value] of Object.entries(fields)) call = call.field(field, value);
    const response = await call.attach('file', await png(), { filename: 'audited.png', contentType: 'application/octet-stream' });
    expect(response.status, response.text).toBe(201);
    return response.body as { id: number; size: number };
  };

  let postId: number;
  beforeAll(async () => {
    postId = (await createPost(app, app.tokens.admin, { title: 'Commented on' })).id;
  });

  describe('tags', () => {
    it('REST: created, renamed and deleted by an editor, each with its entry', async () => {
      const created = await http().post('/tags').set(bearer(app.tokens.editor)).send({ name: 'Audit Rest' }).expect(201);
      const id = created.body.id as number;
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.create', resource_type: 'tag', resource_id: id, ...byToken('editor') });
      expect(changesOf(await lastEntry('tag', id))).toEqual({ name: { from: null, to: 'Audit Rest' }, slug: { from: null, to: 'audit-rest' } });

      await http().patch(`/tags/${id}`).set(bearer(app.tokens.editor)).send({ name: 'Audit Renamed' }).expect(200);
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.update', ...byToken('editor') });
      expect(changesOf(await lastEntry('tag', id))).toEqual({ name: { from: 'Audit Rest', to: 'Audit Renamed' }, slug: { from: 'audit-rest', to: 'audit-renamed' } });

      await http().delete(`/tags/${id}`).set(bearer(app.tokens.admin)).expect(204);
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.delete', ...byToken('admin') });
      expect(changesOf(await lastEntry('tag', id))).toEqual({ name: { from: 'Audit Renamed', to: null }, slug: { from: 'audit-renamed', to: null } });
      expect((await entriesOf('tag', id)).map((entry) => entry.action)).toEqual(['tags.create', 'tags.update', 'tags.delete']);
    });

    it('GraphQL: createTag, updateTag, deleteTag', async () => {
      const { createTag } = expectData(await gql('mutation { createTag(input: { name: "Audit Graph" }) { id } }', {}, 'admin'));
      const id = Number(createTag.id);
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.create', ...byToken('admin') });
      expectData(await gql('mutation($id: Int!) { updateTag(id: $id, input: { name: "Audit Graph Two" }) { id } }', { id }, 'editor'));
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.update', ...byToken('editor') });
      expect(changesOf(await lastEntry('tag', id))).toEqual({ name: { from: 'Audit Graph', to: 'Audit Graph Two' }, slug: { from: 'audit-graph', to: 'audit-graph-two' } });
      expectData(await gql('mutation($id: Int!) { deleteTag(id: $id) }', { id }, 'editor'));
      expect(await lastEntry('tag', id)).toMatchObject({ action: 'tags.delete', ...byToken('editor') });
      expect(changesOf(await lastEntry('tag', id))).toMatchObject({ slug: { from: 'audit-graph-two', to: null } });
    });

    it("a tag made by tagging a post is created by the post's writer, its entry naming the post", async () => {
      const post = await createPost(app, app.tokens.alice, { tags: ['Audit Tagged New'] });
      const [{ id }] = await sql<{ id: number }>('SELECT id FROM tags WHERE slug = $1', ['audit-tagged-new']);
      const [entry] = await entriesOf('tag', Number(id));
      expect(entry).toMatchObject({ action: 'tags.create', ...byToken('alice') });
      expect(changesOf(entry)).toEqual({ name: { from: null, to: 'Audit Tagged New' }, slug: { from: null, to: 'audit-tagged-new' }, postId: { from: null, to: post.id } });
    });
  });

  describe('comments', () => {
    it('REST: written, approved, edited back to pending, hidden and deleted, each with its entry', async () => {
      const created = await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.alice)).send({ body: 'First words' }).expect(201);
      const id = created.body.id as number;
      const [first] = await entriesOf('comment', id);
      expect(first).toMatchObject({ action: 'comments.create', resource_type: 'comment', resource_id: id, ...byToken('alice') });
      expect(changesOf(first)).toEqual({ body: { from: null, to: 'First words' }, postId: { from: null, to: postId }, parentId: { from: null, to: null }, status: { from: null, to: 'pending' } });

      const reply = await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.moderator)).send({ body: 'A reply', parentId: id }).expect(201);
      expect(changesOf(await lastEntry('comment', reply.body.id as number))).toEqual({
        body: { from: null, to: 'A reply' },
        postId: { from: null, to: postId },
        parentId: { from: null, to: id },
        status: { from: null, to: 'approved' },
      });

      await http().patch(`/comments/${id}`).set(bearer(app.tokens.moderator)).send({ status: 'approved' }).expect(200);
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.moderate', ...byToken('moderator') });
      expect(changesOf(await lastEntry('comment', id))).toEqual({ status: { from: 'pending', to: 'approved' } });

      // Under COMMENTS_MODERATION=all an edit of an approved comment waits again: the entry shows it.
      await http().patch(`/comments/${id}`).set(bearer(app.tokens.alice)).send({ body: 'Second words' }).expect(200);
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.update', ...byToken('alice') });
      expect(changesOf(await lastEntry('comment', id))).toEqual({ body: { from: 'First words', to: 'Second words' }, status: { from: 'approved', to: 'pending' } });

      await http().patch(`/comments/${id}`).set(bearer(app.tokens.editor)).send({ status: 'hidden' }).expect(200);
      expect(changesOf(await lastEntry('comment', id))).toEqual({ status: { from: 'pending', to: 'hidden' } });

      // A moderator deletes it: one entry, its replies (gone by the cascade) named by id.
      await http().delete(`/comments/${id}`).set(bearer(app.tokens.moderator)).expect(204);
      const deleted = await lastEntry('comment', id);
      expect(deleted).toMatchObject({ action: 'comments.delete', ...byToken('moderator') });
      // Deleted for good: its words leave every entry about it (v3 Privacy), its states and ids stay.
      expect(changesOf(deleted)).toEqual({
        body: { from: '[erased]', to: null },
        postId: { from: postId, to: null },
        authorId: { from: idOf('alice'), to: null },
        status: { from: 'hidden', to: null },
        replies: { from: [reply.body.id], to: null },
      });
      expect((await entriesOf('comment', reply.body.id as number)).map((entry) => entry.action)).toEqual(['comments.create']);
      expect(changesOf((await entriesOf('comment', id))[2])).toEqual({ body: { from: '[erased]', to: '[erased]' }, status: { from: 'approved', to: 'pending' } });
      expect((await entriesOf('comment', id)).map((entry) => entry.action)).toEqual(['comments.create', 'comments.moderate', 'comments.update', 'comments.moderate', 'comments.delete']);
    });

    it('GraphQL: createComment, updateComment (text and status), moderateComments, deleteComment by its author', async () => {
      const { createComment } = expectData(await gql('mutation($postId: Int!) { createComment(input: { postId: $postId, body: "Over GraphQL" }) { id } }', { postId }, 'bob'));
      const id = Number(createComment.id);
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.create', ...byToken('bob') });
      expect(changesOf(await lastEntry('comment', id))).toMatchObject({ body: { from: null, to: 'Over GraphQL' }, status: { from: null, to: 'pending' } });

      expectData(await gql('mutation($id: Int!) { updateComment(id: $id, input: { status: APPROVED }) { id } }', { id }, 'moderator'));
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.moderate', ...byToken('moderator') });

      expectData(await gql('mutation($id: Int!) { updateComment(id: $id, input: { body: "Edited over GraphQL" }) { id } }', { id }, 'bob'));
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.update', ...byToken('bob') });
      expect(changesOf(await lastEntry('comment', id))).toEqual({ body: { from: 'Over GraphQL', to: 'Edited over GraphQL' }, status: { from: 'approved', to: 'pending' } });

      expectData(await gql('mutation($ids: [Int!]!) { moderateComments(ids: $ids, status: APPROVED) { id } }', { ids: [id] }, 'admin'));
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.moderate', ...byToken('admin') });
      expect(changesOf(await lastEntry('comment', id))).toEqual({ status: { from: 'pending', to: 'approved' } });

      expectData(await gql('mutation($id: Int!) { deleteComment(id: $id) }', { id }, 'bob'));
      expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.delete', ...byToken('bob') });
      expect(changesOf(await lastEntry('comment', id))).toMatchObject({ body: { from: '[erased]', to: null }, status: { from: 'approved', to: null } });
    });

    it('a bulk moderation writes one entry per comment it changes (one statement: one time, one request), none for one already in its status', async () => {
      const ids: number[] = [];
      for (const body of ['Bulk one', 'Bulk two', 'Bulk three']) ids.push((await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.bob)).send({ body }).expect(201)).body.id as number);
      await http().patch(`/comments/${ids[2]}`).set(bearer(app.tokens.moderator)).send({ status: 'approved' }).expect(200);
      const before = await entryCount();

      await http()
        .patch('/comments')
        .set(bearer(app.tokens.moderator))
        .set('x-request-id', 'audit-bulk-1')
        .send(ids.map((id) => ({ id, status: 'approved' })))
        .expect(200);
      expect(await entryCount()).toBe(before + 2);
      const entries = await Promise.all(ids.map(async (id) => (await entriesOf('comment', id)).filter((entry) => entry.request_id === 'audit-bulk-1')));
      expect(entries.map((list) => list.length)).toEqual([1, 1, 0]);
      const [[first], [second]] = entries;
      for (const entry of [first, second]) {
        expect(entry).toMatchObject({ action: 'comments.moderate', ...byToken('moderator') });
        expect(changesOf(entry)).toEqual({ status: { from: 'pending', to: 'approved' } });
      }
      expect(new Date(first.at).getTime()).toBe(new Date(second.at).getTime());

      const { moderateComments } = expectData(await gql('mutation($ids: [Int!]!) { moderateComments(ids: $ids, status: HIDDEN) { id } }', { ids }, 'editor'));
      expect(moderateComments).toHaveLength(3);
      for (const id of ids) {
        expect(await lastEntry('comment', id)).toMatchObject({ action: 'comments.moderate', ...byToken('editor') });
        expect(changesOf(await lastEntry('comment', id))).toEqual({ status: { from: 'approved', to: 'hidden' } });
      }
      expect(await entryCount()).toBe(before + 5);
    });
  });

  describe('media', () => {
    it('REST: uploaded, changed and deleted, each with its entry (the facts of the file, never its bytes)', async () => {
      const media = await upload(app.tokens.alice, { alt: 'A blue card' });
      const [created] = await entriesOf('media', media.id);
      expect(created).toMatchObject({ action: 'media.create', resource_type: 'media', resource_id: media.id, ...byToken('alice') });
      expect(changesOf(created)).toEqual({
        filename: { from: null, to: 'audited.png' },
        mimeType: { from: null, to: 'image/png' },
        size: { from: null, to: media.size },
        width: { from: null, to: 40 },
        height: { from: null, to: 30 },
        alt: { from: null, to: 'A blue card' },
        uploaderId: { from: null, to: idOf('alice') },
      });

      await http().patch(`/media/${media.id}`).set(bearer(app.tokens.alice)).send({ alt: 'A blue card, sideways', caption: 'Cards' }).expect(200);
      expect(await lastEntry('media', media.id)).toMatchObject({ action: 'media.update', ...byToken('alice') });
      expect(changesOf(await lastEntry('media', media.id))).toEqual({ alt: { from: 'A blue card', to: 'A blue card, sideways' }, caption: { from: null, to: 'Cards' } });

      await http().delete(`/media/${media.id}`).set(bearer(app.tokens.editor)).expect(204);
      const deleted = await lastEntry('media', media.id);
      expect(deleted).toMatchObject({ action: 'media.delete', ...byToken('editor') });
      expect(changesOf(deleted)).toMatchObject({ filename: { from: 'audited.png', to: null }, alt: { from: 'A blue card, sideways', to: null }, uploaderId: { from: idOf('alice'), to: null } });
    });

    it('GraphQL: updateMedia and deleteMedia (an upload has only the REST door)', async () => {
      const media = await upload(app.tokens.bob);
      expectData(await gql('mutation($id: Int!) { updateMedia(id: $id, input: { caption: "Over GraphQL", focalPoint: { x: 0.25, y: 0.75 } }) { id } }', { id: media.id }, 'bob'));
      expect(await lastEntry('media', media.id)).toMatchObject({ action: 'media.update', ...byToken('bob') });
      expect(changesOf(await lastEntry('media', media.id))).toEqual({ caption: { from: null, to: 'Over GraphQL' }, focalPoint: { from: null, to: { x: 0.25, y: 0.75 } } });
      expectData(await gql('mutation($id: Int!) { deleteMedia(id: $id) }', { id: media.id }, 'admin'));
      expect(await lastEntry('media', media.id)).toMatchObject({ action: 'media.delete', ...byToken('admin') });
      expect((await entriesOf('media', media.id)).map((entry) => entry.action)).toEqual(['media.create', 'media.update', 'media.delete']);
    });
  });

  it('an API key caller is recorded with the credential api-key and its keyId', async () => {
    const key = (await http().post(`/users/${idOf('alice')}/api-keys`).set(bearer(app.tokens.alice)).send({ name: 'Audited key', scopes: ['write'] }).expect(201)).body as { id: number; key: string };
    const byKey = { actor_id: idOf('alice'), actor_credential: 'api-key', actor_key_id: key.id };
    // A new comment's entry is written with its row (the companion INSERT); a media change's by record().
    const comment = await http().post(`/posts/${postId}/comments`).set(bearer(key.key)).send({ body: 'By key' }).expect(201);
    expect(await lastEntry('comment', comment.body.id as number)).toMatchObject({ action: 'comments.create', ...byKey });
    const media = await upload(key.key);
    expect(await lastEntry('media', media.id)).toMatchObject({ action: 'media.create', ...byKey });
    expectData(await graphql(app, 'mutation($id: Int!) { updateMedia(id: $id, input: { alt: "Keyed" }) { id } }', { id: media.id }, { token: key.key }));
    expect(await lastEntry('media', media.id)).toMatchObject({ action: 'media.update', ...byKey });
  });

  it('a refused change (400, 403, 404, 409, 412) leaves no entry', async () => {
    const tag = (await http().post('/tags').set(bearer(app.tokens.editor)).send({ name: 'Audit Taken' }).expect(201)).body as { id: number };
    const other = (await http().post('/tags').set(bearer(app.tokens.editor)).send({ name: 'Audit Other' }).expect(201)).body as { id: number };
    const comment = (await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.alice)).send({ body: 'Refusals' }).expect(201)).body as { id: number; version: number };
    const media = await upload(app.tokens.alice);
    await createPost(app, app.tokens.alice, { coverImageId: media.id });
    // Approved, so that others see it (a pending comment is 404 to them, not 403).
    comment.version = (await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.moderator)).send({ status: 'approved' }).expect(200)).body.version as number;
    const before = await entryCount();

    // 403: not an editor, not the author, not a moderator.
    await http().post('/tags').set(bearer(app.tokens.alice)).send({ name: 'Audit Forbidden' }).expect(403);
    expectError(await gql('mutation($id: Int!) { deleteTag(id: $id) }', { id: tag.id }, 'moderator'), 'FORBIDDEN', ['deleteTag']);
    await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).send({ body: 'Not mine' }).expect(403);
    await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.alice)).send({ status: 'approved' }).expect(403);
    await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.bob)).expect(403);
    // The cover of a public post: public, so seen (403, not 404).
    await http().patch(`/media/${media.id}`).set(bearer(app.tokens.moderator)).send({ alt: 'Not mine' }).expect(403);
    // 404: nothing there; a bulk moderation naming one missing comment changes none.
    await http().patch('/tags/999999').set(bearer(app.tokens.editor)).send({ name: 'Nobody' }).expect(404);
    await http().delete('/comments/999999').set(bearer(app.tokens.moderator)).expect(404);
    await http()
      .patch('/comments')
      .set(bearer(app.tokens.moderator))
      .send([
        { id: comment.id, status: 'approved' },
        { id: 999999, status: 'approved' },
      ])
      .expect(404);
    // 409: a taken slug (the write fails in its transaction); an item a post uses.
    await http().post('/tags').set(bearer(app.tokens.editor)).send({ name: 'audit taken' }).expect(409);
    await http().patch(`/tags/${other.id}`).set(bearer(app.tokens.editor)).send({ name: 'Audit  Taken' }).expect(409);
    expectError(await gql('mutation { createTag(input: { name: "AUDIT TAKEN" }) { id } }', {}, 'admin'), 'CONFLICT', ['createTag']);
    await http().delete(`/media/${media.id}`).set(bearer(app.tokens.alice)).expect(409);
    // 400: bad input.
    await http().post('/tags').set(bearer(app.tokens.editor)).send({ name: '!!!' }).expect(400);
    await http().patch(`/comments/${comment.id}`).set(bearer(app.tokens.alice)).send({}).expect(400);
    await http().post(`/posts/${postId}/comments`).set(bearer(app.tokens.alice)).send({ body: 'Orphan', parentId: 999999 }).expect(400);
    await http().patch(`/media/${media.id}`).set(bearer(app.tokens.alice)).send({}).expect(400);
    // 412: a stale version.
    await http()
      .patch(`/comments/${comment.id}`)
      .set(bearer(app.tokens.alice))
      .set('if-match', `"${comment.version + 5}"`)
      .send({ body: 'Stale' })
      .expect(412);

    expect(await entryCount()).toBe(before);
    // And each of those still changes when asked rightly (the refusals were not for another reason).
    await http().delete(`/comments/${comment.id}`).set(bearer(app.tokens.alice)).expect(204);
    expect(await entryCount()).toBe(before + 1);
  });
});
