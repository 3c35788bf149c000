import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokenFor } from './support/auth.js';
import { expectNoGraphQLLeaks } from './support/inject.js';
import { snapshotData } from './support/snapshot.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Issue 7, concurrency: many clients at once on one resource, over real sockets (the app
 * listens; requests go through fetch with its connection pool). Exactly one of competing
 * writers wins where only one may, and nothing is lost where all may.
 */

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

const unique = () => randomBytes(4).toString('hex');

describeEachDatabase('concurrency', (kind) => {
  const app = useApp(kind);
  let base: string;

  beforeAll(async () => {
    await app.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });

  async function call(method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.status, headers: response.headers, text, body };
  }

  const graphql = async (query: string, variables: Record<string, unknown>, token?: string) => {
    const answer = await call('POST', '/graphql', { token, body: { query, variables } });
    expectNoGraphQLLeaks(answer.text);
    return answer;
  };

  const statuses = (answers: Answer[]) => answers.map((answer) => answer.status).sort((a, b) => a - b);
  const problemCodes = (answers: Answer[]) => answers.map((answer) => answer.body?.code);

  async function newPost(token = app.tokens.alice): Promise<number> {
    const created = await call('POST', '/posts', { token, body: { title: `Concurrent ${unique()}`, body: 'Body' } });
    expect(created.status, created.text).toBe(201);
    return created.body.id as number;
  }

  it('50 concurrent comments on one post: all 201, all 50 listed once, commentCount 50', async () => {
    const post = await newPost();
    const tokens = [app.tokens.alice, app.tokens.bob, app.tokens.admin];
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) => call('POST', `/posts/${post}/comments`, { token: tokens[index % 3], body: { body: `Comment number ${index}` } })),
    );
    expect(statuses(answers)).toEqual(Array(50).fill(201));
    const ids = answers.map((answer) => answer.body.id as number);
    expect(new Set(ids).size).toBe(50);
    for (const answer of answers) expect(answer.headers.get('location')).toBe(`/comments/${answer.body.id}`);

    const listed = await call('GET', `/posts/${post}/comments?limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.map((comment: { id: number }) => comment.id)).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(listed.body.map((comment: { body: string }) => comment.body))).toEqual(new Set(Array.from({ length: 50 }, (_, index) => `Comment number ${index}`)));

    const counted = await graphql('query($id: Int!) { post(id: $id) { commentCount comments(first: 100) { id } } }', { id: post });
    expect(counted.body.errors).toBeUndefined();
    expect(counted.body.data.post.commentCount).toBe(50);
    expect(counted.body.data.post.comments).toHaveLength(50);
  });

  it('concurrent sign-ups with one e-mail in different letter cases (REST and GraphQL): exactly one wins, the rest 409', async () => {
    for (let round = 0; round < 3; round += 1) {
      const local = `race.${unique()}.${round}`;
      const variants = [
        `${local}@example.com`,
        `${local.toUpperCase()}@EXAMPLE.COM`,
        `${local}@Example.Com`,
        ` ${local}@example.com `,
        `${local[0].toUpperCase()}${local.slice(1)}@example.com`,
        `${local}@EXAMPLE.com`,
        `${local.toUpperCase()}@example.com`,
        `${local}@example.COM`,
      ];
      const before = await snapshotData(app);
      const rest = variants.slice(0, 6).map((email) => call('POST', '/users', { body: { name: 'Racer', email, password: 'racer-password' } }));
      const viaGraphQL = variants
        .slice(6)
        .map((email) => graphql('mutation($input: CreateUserInput!) { createUser(input: $input) { id email } }', { input: { name: 'Racer', email, password: 'racer-password' } }));
      const [restAnswers, graphqlAnswers] = await Promise.all([Promise.all(rest), Promise.all(viaGraphQL)]);

      const restWins = restAnswers.filter((answer) => answer.status === 201);
      const graphqlWins = graphqlAnswers.filter((answer) => answer.body?.data?.createUser);
      expect(restWins.length + graphqlWins.length, `round ${round}: ${restAnswers.map((a) => a.text).join('\n')}`).toBe(1);
      for (const answer of restAnswers.filter((a) => a.status !== 201)) {
        expect(answer.status, answer.text).toBe(409);
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(answer.body.code).toBe('CONFLICT');
      }
      for (const answer of graphqlAnswers.filter((a) => !a.body?.data?.createUser)) {
        expect(answer.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code), answer.text).toEqual(['CONFLICT']);
      }
      const after = await snapshotData(app);
      expect(after.counts.users).toBe(before.counts.users + 1);
      const winner = restWins[0]?.body ?? graphqlWins[0].body.data.createUser;
      expect(winner.email).toBe(`${local}@example.com`);
    }
  });

  describe('concurrent PATCHes with one ETag: exactly one 200, the rest 412, and the winner is stored', () => {
    const N = 10;

    async function race(path: string, tokens: string[], change: (index: number) => Record<string, unknown>, field: string) {
      const read = await call('GET', path);
      expect(read.status).toBe(200);
      const etag = read.headers.get('etag')!;
      const answers = await Promise.all(
        Array.from({ length: N }, (_, index) => call('PATCH', path, { token: tokens[index % tokens.length], body: change(index), headers: { 'if-match': etag } })),
      );
      expect(statuses(answers), answers.map((a) => a.text).join('\n')).toEqual([200, ...Array(N - 1).fill(412)]);
      expect(problemCodes(answers.filter((a) => a.status === 412))).toEqual(Array(N - 1).fill('PRECONDITION_FAILED'));
      const winner = answers.find((answer) => answer.status === 200)!;
      const stored = await call('GET', path);
      expect(stored.body[field]).toBe(winner.body[field]);
      expect(stored.headers.get('etag')).toBe(winner.headers.get('etag'));
      expect(stored.headers.get('etag')).not.toBe(etag);
      // The old tag stays stale: one more try with it is 412 too.
      expect((await call('PATCH', path, { token: tokens[0], body: change(99), headers: { 'if-match': etag } })).status).toBe(412);
    }

    it('on a post (its author and an admin racing)', async () => {
      const post = await newPost();
      await race(`/posts/${post}`, [app.tokens.alice, app.tokens.admin], (index) => ({ title: `Winner ${index}` }), 'title');
    });

    it('on a comment', async () => {
      const post = await newPost(app.tokens.bob);
      const comment = await call('POST', `/posts/${post}/comments`, { token: app.tokens.alice, body: { body: 'Original' } });
      await race(`/comments/${comment.body.id}`, [app.tokens.alice, app.tokens.admin], (index) => ({ body: `Winner ${index}` }), 'body');
    });

    it('on a user', async () => {
      const email = `patch.${unique()}@example.com`;
      const created = await call('POST', '/users', { body: { name: 'Patchable', email, password: 'patch-password' } });
      const token = await tokenFor(app, { email, password: 'patch-password' });
      await race(`/users/${created.body.id}`, [token, app.tokens.admin], (index) => ({ name: `Winner ${index}` }), 'name');
    });
  });

  it('comments racing the deletion of their post: each 201 or 404 (never a 5xx), and none is left behind', async () => {
    for (let round = 0; round < 5; round += 1) {
      const post = await newPost();
      const comments = Array.from({ length: 20 }, (_, index) => call('POST', `/posts/${post}/comments`, { token: index % 2 ? app.tokens.bob : app.tokens.alice, body: { body: `Racing ${index}` } }));
      const deletion = call('DELETE', `/posts/${post}`, { token: app.tokens.alice });
      const [answers, deleted] = await Promise.all([Promise.all(comments), deletion]);
      expect(deleted.status, deleted.text).toBe(204);
      for (const answer of answers) {
        expect([201, 404], answer.text).toContain(answer.status);
        if (answer.status === 404) expect(answer.body.code).toBe('NOT_FOUND');
        else expect((await call('GET', `/comments/${answer.body.id}`)).status).toBe(404);
      }
      const orphans = await graphql('query($id: Int!) { post(id: $id) { id } }', { id: post });
      expect(orphans.body.data.post).toBeNull();
    }
  });

  it('PATCHes (without If-Match) racing the deletion: each 200 or 404, never 412 or a 5xx', async () => {
    for (let round = 0; round < 5; round += 1) {
      const post = await newPost();
      const comment = (await call('POST', `/posts/${post}/comments`, { token: app.tokens.alice, body: { body: 'Soon gone' } })).body.id as number;
      const patches = Array.from({ length: 10 }, (_, index) =>
        index % 2 ? call('PATCH', `/posts/${post}`, { token: app.tokens.alice, body: { title: `Edit ${index}` } }) : call('PATCH', `/comments/${comment}`, { token: app.tokens.admin, body: { body: `Edit ${index}` } }),
      );
      const [answers, deleted] = await Promise.all([Promise.all(patches), call('DELETE', `/posts/${post}`, { token: app.tokens.admin })]);
      expect(deleted.status, deleted.text).toBe(204);
      for (const answer of answers) {
        expect([200, 404], answer.text).toContain(answer.status);
        if (answer.status === 404) expect(answer.body.code).toBe('NOT_FOUND');
      }
    }
  });

  it('concurrent deletes of one trashed post (REST and GraphQL): exactly one succeeds, the rest 404; its comments go with it', async () => {
    for (let round = 0; round < 3; round += 1) {
      const post = await newPost();
      await call('POST', `/posts/${post}/comments`, { token: app.tokens.bob, body: { body: 'Goes with the post' } });
      // The first DELETE moves it to the trash; the racing ones delete it for good, once.
      expect((await call('DELETE', `/posts/${post}`, { token: app.tokens.alice })).status).toBe(204);
      const before = await snapshotData(app);
      const restDeletes = Array.from({ length: 8 }, (_, index) => call('DELETE', `/posts/${post}`, { token: index % 2 === 0 ? app.tokens.alice : app.tokens.admin }));
      const graphqlDeletes = Array.from({ length: 2 }, () => graphql('mutation($id: Int!) { deletePost(id: $id) }', { id: post }, app.tokens.admin));
      const [rest, viaGraphQL] = await Promise.all([Promise.all(restDeletes), Promise.all(graphqlDeletes)]);

      const restWins = rest.filter((answer) => answer.status === 204).length;
      const graphqlWins = viaGraphQL.filter((answer) => answer.body?.data?.deletePost === post).length;
      expect(restWins + graphqlWins, `round ${round}: ${rest.map((a) => `${a.status} ${a.text}`).join(' | ')} | ${viaGraphQL.map((a) => a.text).join(' | ')}`).toBe(1);
      for (const answer of rest.filter((a) => a.status !== 204)) {
        expect(answer.status, answer.text).toBe(404);
        expect(answer.body.code).toBe('NOT_FOUND');
      }
      for (const answer of viaGraphQL.filter((a) => a.body?.data?.deletePost !== post)) {
        expect(answer.body.errors.map((error: { extensions: { code: string } }) => error.extensions.code), answer.text).toEqual(['NOT_FOUND']);
      }
      expect((await call('GET', `/posts/${post}`)).status).toBe(404);
      const after = await snapshotData(app);
      expect(after.counts).toEqual({ ...before.counts, posts: before.counts.posts - 1, comments: before.counts.comments - 1 });
    }
  });
});
