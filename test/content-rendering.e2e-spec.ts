import { readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ContentRenderer } from '../src/content/content-renderer.js';
import { TransactionRunner } from '../src/common/persistence/transaction-runner.js';
import { textProblem } from '../src/common/validation/well-formed.js';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { bodyHtmlProblems, linksOf, pageProblems } from './support/html-safety.js';
import { expectProblem } from './support/problems.js';
import { createPost, type PostBody } from './support/resources.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §13 "bodyFormat": a body written as plain text, Markdown or HTML is kept as written in
 * `body` and rendered once, on write, to `bodyHtml` through one allowlist; comments as Markdown
 * without headings, images or raw HTML. The XSS corpus (test/fixtures/xss-vectors.json: the OWASP
 * filter-evasion cases, mXSS samples, Markdown link tricks) goes in through POST /posts and POST
 * /posts/{id}/comments and is read back through REST JSON, GraphQL and the HTML page; parse5 (the
 * browsers' parsing algorithm) reads what came out.
 */
const { vectors } = JSON.parse(readFileSync(new URL('./fixtures/xss-vectors.json', import.meta.url), 'utf8')) as { vectors: string[] };
// Text no door accepts (NUL, other C0 controls): refused with 400 before anything renders it.
const REFUSED = vectors.filter((vector) => textProblem(vector) !== undefined);
const ACCEPTED = vectors.filter((vector) => textProblem(vector) === undefined);
const FORMATS = ['html', 'markdown'] as const;
const COMMENT_REL = 'nofollow ugc noopener noreferrer';
/** GraphQL reads in groups of aliases, under the query cost limits (without the leak check: the vectors hold `<select>`, which it takes for SQL). */
const GROUP = 20;

type RenderedPost = PostBody & { bodyFormat: string; bodyHtml: string; excerpt: string; readingTimeMinutes: number };

const groups = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / GROUP) }, (_, index) => items.slice(index * GROUP, (index + 1) * GROUP));

describeEachDatabase('content rendering', (kind) => {
  let app: TestApp;
  let alice: string;
  const http = () => request(app.server);
  const created = async (fields: Record<string, unknown>) => (await createPost(app, alice, fields)) as RenderedPost;

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { PUBLIC_BASE_URL: 'https://blog.example.com' } });
    alice = await tokenFor(app, ALICE);
  });
  afterAll(async () => {
    await app?.close();
  });

  describe('a Markdown post', () => {
    const body = '# Release notes\n\n| Version | Date |\n|:--|--:|\n| 2.0 | May |\n\nRead [the guide](https://docs.example.org/guide), [the archive](/posts) or [home](https://blog.example.com/).';
    const expected = '<h1>Release notes</h1>\n<table>\n<thead>\n<tr>\n<th align="left">Version</th>\n<th align="right">Date</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n'
      + '<td align="left">2.0</td>\n<td align="right">May</td>\n</tr>\n</tbody>\n</table>\n'
      + '<p>Read <a href="https://docs.example.org/guide" rel="noopener noreferrer">the guide</a>, <a href="/posts">the archive</a> or <a href="https://blog.example.com/">home</a>.</p>';

    it('renders a heading, a table and links (rel on the one to another origin than PUBLIC_BASE_URL\'s) via REST and GraphQL', async () => {
      const post = await created({ body, bodyFormat: 'markdown' });
      expect(post).toMatchObject({ body, bodyFormat: 'markdown', bodyHtml: expected, excerpt: 'Release notes Version Date 2.0 May Read the guide, the archive or home.', readingTimeMinutes: 1 });
      expect((await http().get(`/posts/${post.id}`).expect(200)).body).toMatchObject({ body, bodyFormat: 'markdown', bodyHtml: expected });
      const data = expectData(await graphql(app, `{ post(id: ${post.id}) { body bodyFormat bodyHtml excerpt } }`));
      expect(data.post).toEqual({ body, bodyFormat: 'MARKDOWN', bodyHtml: expected, excerpt: post.excerpt });
    });

    it('written through GraphQL renders the same', async () => {
      const data = expectData(await graphql(app, 'mutation($input: CreatePostInput!) { createPost(input: $input) { id body bodyFormat bodyHtml } }', { input: { title: 'Notes', body, bodyFormat: 'MARKDOWN' } }, { token: alice }));
      expect(data.createPost).toMatchObject({ body, bodyFormat: 'MARKDOWN', bodyHtml: expected });
    });

    it('PATCH of bodyFormat alone renders the body again', async () => {
      const post = await created({ body: '<em>hi</em> *there*', bodyFormat: 'plain' });
      expect(post.bodyHtml).toBe('<p>&lt;em&gt;hi&lt;/em&gt; *there*</p>');
      const asHtml = await http().patch(`/posts/${post.id}`).set(bearer(alice)).send({ bodyFormat: 'html' }).expect(200);
      expect(asHtml.body).toMatchObject({ body: '<em>hi</em> *there*', bodyHtml: '<em>hi</em> *there*' });
      const asMarkdown = await http().patch(`/posts/${post.id}`).set(bearer(alice)).send({ bodyFormat: 'markdown' }).expect(200);
      expect(asMarkdown.body.bodyHtml).toBe('<p><em>hi</em> <em>there</em></p>');
    });
  });

  it('a write that renders a body has the engine ready before its transaction opens (loading it there would hold the write lock)', async () => {
    const renderer = app.app.get(ContentRenderer);
    const transactions = app.app.get(TransactionRunner);
    const post = await created({ body: 'plain first' });
    const comment = (await http().post(`/posts/${post.id}/comments`).set(bearer(alice)).send({ body: 'a *comment*' }).expect(201)).body as { id: number };
    const writes: [string, () => Promise<unknown>][] = [
      ['a Markdown post', () => created({ body: '*new*', bodyFormat: 'markdown' })],
      ['a PATCH of the body', async () => http().patch(`/posts/${post.id}`).set(bearer(alice)).send({ body: '*edited*' }).expect(200)],
      ['a comment edited', async () => http().patch(`/comments/${comment.id}`).set(bearer(alice)).send({ body: '**edited**' }).expect(200)],
    ];
    for (const [what, write] of writes) {
      const engine = vi.spyOn(renderer, 'engine');
      const run = vi.spyOn(transactions, 'run');
      try {
        await write();
        expect(engine.mock.invocationCallOrder.length, what).toBeGreaterThan(0);
        expect(run.mock.invocationCallOrder.length, what).toBeGreaterThan(0);
        expect(engine.mock.invocationCallOrder[0], what).toBeLessThan(run.mock.invocationCallOrder[0]);
      } finally {
        engine.mockRestore();
        run.mockRestore();
      }
    }
  });

  describe(`the XSS corpus (${vectors.length} vectors)`, () => {
    const posts: { vector: string; format: (typeof FORMATS)[number]; id: number }[] = [];
    const comments: { vector: string; id: number }[] = [];
    // A post page shows its first 100 comments: the comments are spread over posts of 100 at most.
    const commentedPosts: number[] = [];

    beforeAll(async () => {
      for (const format of FORMATS) {
        for (const vector of ACCEPTED) {
          const response = await http().post('/posts').set(bearer(alice)).send({ title: `Vector ${posts.length}`, body: vector, bodyFormat: format });
          expect(response.status, `${format} ${JSON.stringify(vector)}: ${response.text}`).toBe(201);
          expect(response.body.body, `${format} ${JSON.stringify(vector)}`).toBe(vector);
          posts.push({ vector, format, id: response.body.id as number });
        }
      }
      for (const [index, vector] of ACCEPTED.entries()) {
        if (index % 100 === 0) commentedPosts.push((await createPost(app, alice, { title: 'Commented', body: 'Comments below' })).id);
        const response = await http().post(`/posts/${commentedPosts.at(-1)}/comments`).set(bearer(alice)).send({ body: vector });
        expect(response.status, `comment ${JSON.stringify(vector)}: ${response.text}`).toBe(201);
        comments.push({ vector, id: response.body.id as number });
      }
    }, 300_000);

    it('has at least 100 vectors, each accepted as written', () => {
      expect(vectors.length).toBeGreaterThanOrEqual(100);
      expect(posts).toHaveLength(ACCEPTED.length * FORMATS.length);
      expect(comments).toHaveLength(ACCEPTED.length);
    });

    it('REST JSON: body byte for byte as written, bodyHtml within the allowlist', async () => {
      const problems: string[] = [];
      for (const post of posts) {
        const { body } = await http().get(`/posts/${post.id}`).expect(200);
        if (body.body !== post.vector) problems.push(`${post.format} ${JSON.stringify(post.vector)}: body changed to ${JSON.stringify(body.body)}`);
        problems.push(...bodyHtmlProblems(body.bodyHtml as string, 'post').map((problem) => `${post.format} ${JSON.stringify(post.vector)}: ${problem}`));
      }
      expect(problems).toEqual([]);
    }, 120_000);

    it('GraphQL: the same body and bodyHtml as REST', async () => {
      const problems: string[] = [];
      for (const group of groups(posts)) {
        const query = `{ ${group.map((post, index) => `p${index}: post(id: ${post.id}) { body bodyHtml }`).join(' ')} }`;
        const data = expectData(await graphql(app, query, undefined, { token: alice, checkLeaks: false }));
        for (const [index, post] of group.entries()) {
          const read = data[`p${index}`] as { body: string; bodyHtml: string };
          if (read.body !== post.vector) problems.push(`${post.format} ${JSON.stringify(post.vector)}: body changed`);
          problems.push(...bodyHtmlProblems(read.bodyHtml, 'post').map((problem) => `${post.format} ${JSON.stringify(post.vector)}: ${problem}`));
        }
      }
      expect(problems).toEqual([]);
    }, 120_000);

    it('comments (REST and GraphQL): body as written, bodyHtml within the comments\' allowlist, every link rel="nofollow ugc noopener noreferrer"', async () => {
      const problems: string[] = [];
      const check = (vector: string, read: { body: string; bodyHtml: string }, door: string) => {
        const where = `${door} comment ${JSON.stringify(vector)}`;
        if (read.body !== vector) problems.push(`${where}: body changed`);
        problems.push(...bodyHtmlProblems(read.bodyHtml, 'comment').map((problem) => `${where}: ${problem}`));
        for (const link of linksOf(read.bodyHtml)) if (link.rel !== COMMENT_REL) problems.push(`${where}: a link with rel ${link.rel}`);
      };
      for (const comment of comments) check(comment.vector, (await http().get(`/comments/${comment.id}`).set(bearer(alice)).expect(200)).body, 'REST');
      for (const group of groups(comments)) {
        const query = `{ ${group.map((comment, index) => `c${index}: comment(id: ${comment.id}) { body bodyHtml }`).join(' ')} }`;
        const data = expectData(await graphql(app, query, undefined, { token: alice, checkLeaks: false }));
        for (const [index, comment] of group.entries()) check(comment.vector, data[`c${index}`], 'GraphQL');
      }
      expect(problems).toEqual([]);
    }, 120_000);

    it('the HTML pages (GET /posts/{id}, Accept: text/html) hold nothing of a body that could run', async () => {
      const problems: string[] = [];
      for (const id of [...posts.map((post) => post.id), ...commentedPosts]) {
        const page = await http().get(`/posts/${id}`).set('Accept', 'text/html').expect(200);
        expect(page.headers['content-type']).toMatch(/^text\/html/);
        if (commentedPosts.includes(id)) expect(page.text).toMatch(/Comments \([1-9]\d*\)/);
        problems.push(...pageProblems(page.text).map((problem) => `page of post ${id}: ${problem}`));
      }
      expect(problems).toEqual([]);
    }, 180_000);

    it('all vectors in one body (one vector\'s unclosed tag swallowing the next) render safely too', async () => {
      for (const format of FORMATS) {
        const body = ACCEPTED.join('\n');
        const post = await created({ body, bodyFormat: format });
        expect(post.body).toBe(body);
        expect(bodyHtmlProblems(post.bodyHtml, 'post')).toEqual([]);
      }
    });

    it('a vector with NUL or another control character is refused (400 naming body), never stored or a 500', async () => {
      expect(REFUSED.length).toBeGreaterThan(0);
      for (const vector of REFUSED) {
        for (const format of FORMATS) {
          const response = await http().post('/posts').set(bearer(alice)).send({ title: 'Control', body: vector, bodyFormat: format });
          expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(response.body.errors.map((error: { field: string }) => error.field)).toEqual(['body']);
        }
        expectProblem(await http().post(`/posts/${commentedPosts[0]}/comments`).set(bearer(alice)).send({ body: vector }), 400, 'BAD_USER_INPUT');
      }
    });
  });
});
