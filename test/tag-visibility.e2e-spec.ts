import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { createPost, createUser, nextLink } from './support/resources.js';
import { listen, LiveSubscription, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Tag visibility (CONTRACT §18, beside the posts' visibility matrix): a tag only non-public posts
 * carry is seen by those who may see one of those posts and by editors and admins; it is listed,
 * readable and announced (TAG_CREATED) for the public once a public post carries it. Every door:
 * GET /tags, ?slug=, GET /tags/{id}, GraphQL tag(id), tag(slug), tags, the event feed, and the
 * response cache (on here: anonymous answers are kept until a write changes them).
 */
describeEachDatabase('tag visibility', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'memory', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50' }, signIn: ['admin'], timeout: 60_000 });
  let editor: string;
  let writer: { id: number; token: string };
  let other: { id: number; token: string };
  const http = () => request(app.server);
  let sequence = 0;
  const unique = (name: string) => `${name} ${kind} ${++sequence}`;

  beforeAll(async () => {
    const user = await createUser(app);
    expect((await http().patch(`/users/${user.id}`).set(bearer(app.tokens.admin)).send({ role: 'editor' })).status).toBe(200);
    editor = await tokenFor(app, { email: user.email, password: user.password });
    writer = await createUser(app);
    other = await createUser(app);
  }, 60_000);

  type Reader = 'anonymous' | 'other' | 'writer' | 'editor' | 'admin';
  const READERS: Reader[] = ['anonymous', 'other', 'writer', 'editor', 'admin'];
  const tokenOf = (reader: Reader): string | undefined =>
    ({ anonymous: undefined, other: other.token, writer: writer.token, editor, admin: app.tokens.admin })[reader];
  const authorized = (reader: Reader) => {
    const token = tokenOf(reader);
    return token ? bearer(token) : {};
  };

  /** What each door tells this reader of the tag: found or not, through REST and GraphQL. */
  async function doors(reader: Reader, tag: { id: number; slug: string }): Promise<Record<string, boolean>> {
    const item = await http().get(`/tags/${tag.id}`).set(authorized(reader));
    expect([200, 404], item.text).toContain(item.status);
    const bySlug = await http().get(`/tags?slug=${tag.slug}`).set(authorized(reader)).expect(200);
    let listed = false;
    let next: string | null = '/tags?limit=100';
    while (next) {
      const page: request.Response = await http().get(next).set(authorized(reader)).expect(200);
      if ((page.body as { id: number }[]).some((listedTag) => listedTag.id === tag.id)) listed = true;
      next = nextLink(page);
    }
    const data = expectData(
      await graphql(app, 'query($id: Int!, $slug: String!) { byId: tag(id: $id) { id } bySlug: tag(slug: $slug) { id } tags(first: 100) { nodes { id } } }', { id: tag.id, slug: tag.slug }, { token: tokenOf(reader) }),
    ) as { byId: { id: number } | null; bySlug: { id: number } | null; tags: { nodes: { id: number }[] } };
    return {
      item: item.status === 200,
      slug: (bySlug.body as unknown[]).length === 1,
      list: listed,
      graphqlId: data.byId?.id === tag.id,
      graphqlSlug: data.bySlug?.id === tag.id,
      graphqlList: data.tags.nodes.some((node) => node.id === tag.id),
    };
  }

  async function expectSeenBy(tag: { id: number; slug: string }, seeing: Reader[], step: string): Promise<void> {
    for (const reader of READERS) {
      const seen = seeing.includes(reader);
      expect(await doors(reader, tag), `${step}: ${reader}`).toEqual({ item: seen, slug: seen, list: seen, graphqlId: seen, graphqlSlug: seen, graphqlList: seen });
    }
  }

  /** The TAG_CREATED events of the tag in this reader's feed. */
  async function createdEvents(reader: Reader, tagId: number): Promise<unknown[]> {
    const events: { tagId?: number }[] = [];
    let url: string | null = '/events?limit=100&types=TAG_CREATED';
    while (url) {
      const response: request.Response = await http().get(url).set(authorized(reader)).expect(200);
      events.push(...(response.body as { tagId?: number }[]));
      url = nextLink(response);
    }
    return events.filter((event) => event.tagId === tagId);
  }

  async function tagNamedOnDraft(): Promise<{ id: number; slug: string; postId: number }> {
    const draft = await createPost(app, writer.token, { tags: [unique('Secret Plan')], status: 'draft' });
    const [tag] = (await http().get(`/tags?slug=${draft.tags[0]}`).set(bearer(writer.token)).expect(200)).body as { id: number; slug: string }[];
    return { id: tag.id, slug: tag.slug, postId: draft.id };
  }

  describe('a tag only a draft carries', () => {
    it('is seen by the draft\'s writer, editors and admins only, through every door; public (and counted) once its post is published; hidden again once unpublished', async () => {
      const tag = await tagNamedOnDraft();
      // Anonymous answers read before the publication are not served after it (the response cache).
      await expectSeenBy(tag, ['writer', 'editor', 'admin'], 'on a draft');
      await http().patch(`/posts/${tag.postId}`).set(bearer(writer.token)).send({ status: 'published' }).expect(200);
      await expectSeenBy(tag, READERS, 'its post published');
      expect((await http().get(`/tags/${tag.id}`).expect(200)).body.postCount).toBe(1);
      await http().patch(`/posts/${tag.postId}`).set(bearer(writer.token)).send({ status: 'draft' }).expect(200);
      await expectSeenBy(tag, ['writer', 'editor', 'admin'], 'its post a draft again');
    });

    it('stays hidden from the public when its draft is deleted (it was never announced); an editor still sees it', async () => {
      const tag = await tagNamedOnDraft();
      await http().delete(`/posts/${tag.postId}`).set(bearer(writer.token)).expect(204);
      await http().delete(`/posts/${tag.postId}`).set(bearer(writer.token)).expect(204);
      await expectSeenBy(tag, ['editor', 'admin'], 'its draft deleted');
    });

    it('a tag an editor made is public with no post; a public post naming a new tag makes it public at once', async () => {
      const made = (await http().post('/tags').set(bearer(editor)).send({ name: unique('Editorial') }).expect(201)).body as { id: number; slug: string };
      await expectSeenBy(made, READERS, 'made by an editor');
      const post = await createPost(app, writer.token, { tags: [unique('Out In The Open')] });
      const [tag] = (await http().get(`/tags?slug=${post.tags[0]}`).expect(200)).body as { id: number; slug: string }[];
      await expectSeenBy(tag, READERS, 'named on a public post');
    });

    it('TAG_CREATED: to the writer, editors and admins while on a draft; announced to the public when a public post carries it (not again to editors and admins)', async () => {
      const tag = await tagNamedOnDraft();
      await until('the restricted TAG_CREATED in the editor\'s feed', async () => (await createdEvents('editor', tag.id)).length === 1);
      for (const reader of ['anonymous', 'other'] as const) expect(await createdEvents(reader, tag.id), reader).toEqual([]);
      expect(await createdEvents('writer', tag.id)).toHaveLength(1);
      // Another writer's public post carries it.
      await createPost(app, other.token, { tags: [tag.slug] });
      const [announced] = (await until('the public TAG_CREATED', async () => {
        const events = await createdEvents('anonymous', tag.id);
        return events.length > 0 && events;
      })) as Record<string, unknown>[];
      expect(announced).toMatchObject({ type: 'TAG_CREATED', tagId: tag.id, resource: { id: tag.id, slug: tag.slug } });
      expect(await createdEvents('anonymous', tag.id)).toHaveLength(1);
      expect(await createdEvents('other', tag.id)).toHaveLength(1);
      expect(await createdEvents('editor', tag.id)).toHaveLength(1);
      expect(await createdEvents('admin', tag.id)).toHaveLength(1);
      // The writer heard of it on the draft and hears the announcement too.
      expect(await createdEvents('writer', tag.id)).toHaveLength(2);
    });
    it('the anonymous tagCreated subscription and webhooks hear of it only when it is announced', async () => {
      const bodies: string[] = [];
      const server: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          bodies.push(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const webhook = (await http().post('/webhooks').set(bearer(app.tokens.admin)).send({ url, types: ['TAG_CREATED'] }).expect(201)).body as { id: number };
      const socket = wsClient((await listen(app)).ws);
      try {
        const created = new LiveSubscription(socket.client, 'subscription { tagCreated { id slug } }');
        const heard = () => (created.values as { slug: string }[]).map((tag) => tag.slug);
        await until('subscribed', async () => {
          if (created.results.length > 0) return true;
          await http().post('/tags').set(bearer(editor)).send({ name: unique('Warm Up') }).expect(201);
          return false;
        });
        const secret = await tagNamedOnDraft();
        const marker = (await http().post('/tags').set(bearer(editor)).send({ name: unique('Hook Marker') }).expect(201)).body as { slug: string };
        await until('the marker heard and delivered', () => heard().includes(marker.slug) && bodies.some((body) => body.includes(marker.slug)));
        expect(heard()).not.toContain(secret.slug);
        expect(bodies.join('\n')).not.toContain(secret.slug);

        await http().patch(`/posts/${secret.postId}`).set(bearer(writer.token)).send({ status: 'published' }).expect(200);
        await until('the announcement heard and delivered', () => heard().includes(secret.slug) && bodies.some((body) => body.includes(secret.slug)));
        expect(heard().filter((slug) => slug === secret.slug)).toHaveLength(1);
        created.dispose();
      } finally {
        await socket.dispose();
        await http().delete(`/webhooks/${webhook.id}`).set(bearer(app.tokens.admin));
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });
  });
});
