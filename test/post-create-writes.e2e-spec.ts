import request from 'supertest';
import { DataSource } from 'typeorm';
import { expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';
import { ResourceCatalog } from '../src/common/resource/resource-catalog.js';
import { PostsService } from '../src/posts/posts.service.js';

interface Recorded {
  revisions: { number: number; title: string; body: string; status: string; editor_id: number; created_at: unknown }[];
  entries: { action: string; actor_id: number; changes: string }[];
  events: { type: string; author_id: number; resource: string }[];
}

/**
 * What a new post writes beside its row (issue 43): on PostgreSQL the common post's row, slug
 * claim, revision 1, audit entry and event are one statement; what they write is what the write
 * path of any other post records (PostsService's statements of their own), byte for byte.
 */
describeEachDatabase('a new post’s writes', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, signIn: ['alice'], timeout: 60_000 });
  const http = () => request(app.server);
  const sql = <T>(text: string, params: unknown[] = []) => app.app.get(DataSource).query<T[]>(kind === 'postgres' ? text : text.replace(/\$\d+/g, '?'), params);
  const aliceId = () => Number((JSON.parse(Buffer.from(app.tokens.alice.split('.')[1], 'base64url').toString()) as { sub: string }).sub);
  const count = async (table: string) => Number((await sql<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);

  const recordedOf = async (id: number): Promise<Recorded> => ({
    revisions: await sql('SELECT number, title, body, status, editor_id, created_at FROM post_revisions WHERE post_id = $1 ORDER BY number', [id]),
    entries: await sql("SELECT action, actor_id, changes FROM audit_entries WHERE resource_type = 'post' AND resource_id = $1 ORDER BY id", [id]),
    events: await sql('SELECT type, author_id, resource FROM events WHERE post_id = $1 ORDER BY id', [id]),
  });

  /** What the write path records for the post as it now is (EventPublisher.record: the resource's JSON with its tags). */
  const expectedOf = async (id: number, changes: Record<string, unknown>) => {
    const post = await app.app.get(PostsService).findById(id);
    expect(post).not.toBeNull();
    const resource = app.app.get(ResourceCatalog).ofEvent('postCreated')!.toJson(Object.assign(post!, { tags: post!.tags ?? [] }) as never);
    return { post: post!, resource, changes };
  };

  it('the common post: revision 1, its entry and its POST_CREATED, as the write path records them', async () => {
    const answer = expectData(
      await graphql(app, 'mutation($input: CreatePostInput!) { createPost(input: $input) { id slug } }', { input: { title: 'Written at once', body: 'Its body', excerpt: 'Its excerpt', metaTitle: 'Meta' } }, { token: app.tokens.alice }),
    );
    const id = Number(answer.createPost.id);
    expect(answer.createPost.slug).toBe('written-at-once');
    const { post, resource } = await expectedOf(id, {});
    const recorded = await recordedOf(id);
    expect(recorded.revisions).toHaveLength(1);
    expect(recorded.revisions[0]).toMatchObject({ number: 1, title: 'Written at once', body: 'Its body', status: 'published', editor_id: aliceId() });
    const revisedAt = recorded.revisions[0].created_at;
    expect((revisedAt instanceof Date ? revisedAt : new Date(`${String(revisedAt)}Z`)).getTime()).toBe(post.updatedAt.getTime());
    expect(recorded.events.map(({ type, author_id }) => [type, author_id])).toEqual([['POST_CREATED', aliceId()]]);
    expect(recorded.events[0].resource).toBe(resource);
    expect(JSON.parse(resource)).toMatchObject({ id, slug: 'written-at-once', tags: [] });
    expect(recorded.entries).toHaveLength(1);
    expect(recorded.entries[0]).toMatchObject({ action: 'posts.create', actor_id: aliceId() });
    expect(JSON.parse(recorded.entries[0].changes)).toEqual({
      title: { from: null, to: 'Written at once' },
      slug: { from: null, to: 'written-at-once' },
      bodyFormat: { from: null, to: 'plain' },
      metaTitle: { from: null, to: 'Meta' },
      locale: { from: null, to: post.locale },
      authorId: { from: null, to: aliceId() },
      status: { from: null, to: 'published' },
      publishedAt: { from: null, to: post.publishedAt!.toISOString() },
      body: { from: null, to: { revision: 1 } },
      excerpt: { from: null, to: 'Its excerpt' },
    });
    expect(await count('post_slugs WHERE post_id = ' + id)).toBe(1);
  });

  it('a post with tags (statements of their own) records the same shape: one revision, one entry, its event with its tags', async () => {
    const created = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Tagged at once', body: 'b', tags: ['Writes'] }).expect(201);
    const id = created.body.id as number;
    const { resource } = await expectedOf(id, {});
    const recorded = await recordedOf(id);
    expect(recorded.revisions).toHaveLength(1);
    expect(recorded.events.filter((event) => event.type === 'POST_CREATED').map((event) => event.resource)).toEqual([resource]);
    expect(JSON.parse(resource)).toMatchObject({ id, tags: ['writes'] });
    expect(JSON.parse(recorded.entries[0].changes)).toMatchObject({ tags: { from: null, to: ['writes'] } });
  });

  it('a given slug another post holds is 409 and writes nothing: no row, revision, entry or event', async () => {
    await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Holder', body: 'b', slug: 'held-for-writes' }).expect(201);
    const before = await Promise.all(['posts', 'post_revisions', 'audit_entries', 'events', 'post_slugs'].map(count));
    const refused = await graphql(app, 'mutation { createPost(input: { title: "Taker", body: "b", slug: "held-for-writes" }) { id } }', undefined, { token: app.tokens.alice });
    expectError(refused, 'CONFLICT', ['createPost']);
    expect(await Promise.all(['posts', 'post_revisions', 'audit_entries', 'events', 'post_slugs'].map(count))).toEqual(before);
  });

  it('posts of one title written at the same time: each its own slug, and each slug in its revision, entry and event', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => graphql(app, 'mutation { createPost(input: { title: "Same title", body: "b" }) { id slug } }', undefined, { token: app.tokens.alice })),
    );
    const posts = answers.map((answer) => expectData(answer).createPost as { id: string; slug: string });
    expect(new Set(posts.map((post) => post.slug)).size).toBe(8);
    for (const { id, slug } of posts) {
      const recorded = await recordedOf(Number(id));
      const { resource } = await expectedOf(Number(id), {});
      expect(recorded.revisions).toHaveLength(1);
      expect(recorded.events.map((event) => event.resource)).toEqual([resource]);
      expect(JSON.parse(resource).slug).toBe(slug);
      expect(recorded.entries).toHaveLength(1);
      expect(JSON.parse(recorded.entries[0].changes).slug).toEqual({ from: null, to: slug });
      expect((await sql<{ slug: string }>('SELECT slug FROM post_slugs WHERE post_id = $1', [Number(id)])).map((row) => row.slug)).toEqual([slug]);
    }
  });
});
