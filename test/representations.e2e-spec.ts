import request, { type Response } from 'supertest';
import { create } from 'xmlbuilder2';
import { describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, nextLink, parseXml, xmlFields } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const HAL_TYPE = 'application/hal+json; charset=utf-8';
const XML_TYPE = 'application/xml; charset=utf-8';
const HTML_TYPE = 'text/html; charset=utf-8';
const AVAILABLE = ['application/json', 'application/hal+json', 'application/xml', 'text/html'];

/** Every GET of a resource or a list. */
const RESOURCE_PATHS = ['/posts', '/posts/1', '/posts/1/comments', '/comments/1', '/users', '/users/2', '/users/2/posts'];

/** The href of every <a> in an HTML page. */
function anchors(html: string): string[] {
  return [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((match) => match[1]);
}

function expectVaryAccept(response: Response): void {
  const vary = String(response.headers.vary ?? '');
  expect(vary.split(',').map((name) => name.trim().toLowerCase()), `Vary of ${response.status}`).toContain('accept');
}

describeEachDatabase('representations', (kind) => {
  const app = useApp(kind, { signIn: ['alice', 'bob'] });
  const http = () => request(app.server);
  const get = (path: string, accept?: string) => (accept === undefined ? http().get(path) : http().get(path).set('Accept', accept));

  describe('negotiation', () => {
    it('JSON by default: no Accept, */*, application/json, application/*, and an empty Accept', async () => {
      const reference = await http().get('/posts/1').expect(200);
      expect(reference.headers['content-type']).toBe(JSON_TYPE);
      for (const accept of ['*/*', 'application/json', 'application/*', '', 'application/json;q=0.5, */*;q=0.1']) {
        const response = await get('/posts/1', accept).expect(200);
        expect(response.headers['content-type'], `Accept: ${accept}`).toBe(JSON_TYPE);
        expect(JSON.parse(response.text)).toEqual(reference.body);
      }
    });

    it('HEAD answers the headers GET would, in each format, with no body', async () => {
      for (const accept of ['application/json', 'application/xml', 'text/html']) {
        const full = await get('/posts/1', accept).expect(200);
        const head = await http().head('/posts/1').set('Accept', accept).expect(200);
        expect(head.headers['content-type'], accept).toBe(full.headers['content-type']);
        expect(head.headers.etag, accept).toBe(full.headers.etag);
        expect(head.headers['content-length'], accept).toBe(full.headers['content-length']);
        expectVaryAccept(head);
        expect(head.text ?? '', accept).toBe('');
      }
      await http().head('/posts/1').set('Accept', 'image/png').expect(406);
    });

    it('routes outside the resource API are not negotiated: JSON whatever Accept says, no Vary: Accept', async () => {
      const health = await get('/health', 'application/xml').expect(200);
      expect(health.headers['content-type']).toMatch(/^application\/json/);
      expect(String(health.headers.vary ?? '').toLowerCase()).not.toContain('accept');
      const token = await http().post('/tokens').set('Accept', 'text/html').send(ALICE).expect(201);
      expect(token.headers['content-type']).toMatch(/^application\/json/);
      expect(token.body.accessToken).toEqual(expect.any(String));
    });

    it('HAL: a single resource has the JSON body, a list is a HAL collection of the JSON items, named application/hal+json', async () => {
      const plurals: Record<string, string> = { '/posts': 'posts', '/posts/1/comments': 'comments', '/users': 'users', '/users/2/posts': 'posts' };
      for (const path of RESOURCE_PATHS) {
        const json = await get(path, 'application/json').expect(200);
        const hal = await get(path, 'application/hal+json').expect(200);
        expect(hal.headers['content-type'], path).toBe(HAL_TYPE);
        const plural = plurals[path];
        if (plural === undefined) expect(JSON.parse(hal.text), path).toEqual(json.body);
        else expect(JSON.parse(hal.text), path).toEqual({ _links: { self: { href: path } }, _embedded: { [plural]: json.body } });
      }
    });

    it('q-values are honoured', async () => {
      const cases: [string, string][] = [
        ['application/xml;q=0.9, text/html', HTML_TYPE],
        ['text/html;q=0.1, application/xml', XML_TYPE],
        ['text/html;q=0, */*', JSON_TYPE],
        ['text/html;q=0, application/xml;q=0.2', XML_TYPE],
        ['application/json;q=0.3, application/hal+json;q=0.8', HAL_TYPE],
        ['image/png, application/xml;q=0.1', XML_TYPE],
        ['text/*', HTML_TYPE],
        ['TEXT/HTML', HTML_TYPE],
      ];
      for (const [accept, type] of cases) {
        const response = await get('/posts/1', accept);
        expect(response.status, accept).toBe(200);
        expect(response.headers['content-type'], accept).toBe(type);
      }
    });

    it('406 problem+json listing the available types for anything else, on every GET', async () => {
      for (const accept of ['image/png', 'text/plain', 'application/pdf, image/*', 'text/html;q=0', 'application/json;q=0']) {
        for (const path of RESOURCE_PATHS) {
          const response = await get(path, accept);
          const problem = expectProblem(response, 406, 'NOT_ACCEPTABLE');
          for (const type of AVAILABLE) expect(problem.detail, `${path} ${accept}`).toContain(type);
          expectVaryAccept(response);
        }
      }
    });

    it('Vary: Accept and a Content-Type naming the format on every GET, in every format', async () => {
      const formats: [string | undefined, string][] = [
        [undefined, JSON_TYPE],
        ['application/json', JSON_TYPE],
        ['application/hal+json', HAL_TYPE],
        ['application/xml', XML_TYPE],
        ['text/html', HTML_TYPE],
      ];
      for (const path of RESOURCE_PATHS) {
        for (const [accept, type] of formats) {
          const response = await get(path, accept).expect(200);
          expect(response.headers['content-type'], `${path} ${accept}`).toBe(type);
          expectVaryAccept(response);
        }
      }
    });

    it('Vary: Accept on errors of a GET as well (their format was chosen with Accept in view)', async () => {
      for (const path of ['/posts/999999', '/comments/999999', '/users/999999', '/posts/abc', '/posts?limit=0']) {
        const response = await get(path, 'application/xml');
        expect(response.status).toBeGreaterThanOrEqual(400);
        expectVaryAccept(response);
      }
    });

    it('Vary: Accept on a 304 as well', async () => {
      const first = await get('/posts/1', 'application/xml').expect(200);
      const notModified = await get('/posts/1', 'application/xml').set('If-None-Match', first.headers.etag).expect(304);
      expectVaryAccept(notModified);
    });
  });

  describe('XML', () => {
    it('a post: root <post>, one child per field, <link rel href/> per link', async () => {
      const [json, response] = await Promise.all([get('/posts/1').expect(200), get('/posts/1', 'application/xml').expect(200)]);
      expect(response.text).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>/);
      const root = parseXml(response.text);
      expect(root.name).toBe('post');
      const { fields, links } = xmlFields(root);
      expect(fields).toEqual({
        id: '1',
        title: 'Welcome to the blog service',
        slug: 'welcome-to-the-blog-service',
        body: json.body.body,
        bodyFormat: 'plain',
        bodyHtml: json.body.bodyHtml,
        excerpt: json.body.excerpt,
        readingTimeMinutes: '1',
        metaTitle: '',
        metaDescription: '',
        canonicalUrl: '',
        coverImageId: '',
        locale: 'en',
        authorId: '2',
        status: 'published',
        publishAt: '',
        publishedAt: json.body.publishedAt,
        trashedAt: '',
        createdAt: json.body.createdAt,
        updatedAt: json.body.updatedAt,
        tags: '',
      });
      // Its tags, one <tag> each (none on the demo post).
      expect(root.children.find((child) => child.name === 'tags')?.children).toEqual(json.body.tags.map((slug: string) => expect.objectContaining({ name: 'tag', text: slug })));
      expect(links).toEqual({ self: '/posts/1', author: '/users/2', comments: '/posts/1/comments', tag: '/tags/1' });
      expect(response.text).toContain('<link rel="self" href="/posts/1"/>');
      // The lenient xmlbuilder2 reader agrees.
      expect(create(response.text).root().node.nodeName).toBe('post');
    });

    it('a comment and a user', async () => {
      const comment = parseXml((await get('/comments/2', 'application/xml').expect(200)).text);
      expect(comment.name).toBe('comment');
      const { fields, links } = xmlFields(comment);
      expect(fields).toMatchObject({ id: '2', postId: '1', authorId: '3', body: 'Looking forward to more posts.' });
      expect(Object.keys(fields).sort()).toEqual(['authorId', 'body', 'bodyHtml', 'createdAt', 'id', 'parentId', 'postId', 'status', 'updatedAt']);
      expect(fields.status).toBe('approved');
      expect(links).toEqual({ self: '/comments/2', post: '/posts/1', author: '/users/3', replies: '/posts/1/comments?parentId=2' });

      const userResponse = await get('/users/2', 'application/xml').expect(200);
      expect(userResponse.text).not.toMatch(/password/i);
      const user = parseXml(userResponse.text);
      expect(user.name).toBe('user');
      const userXml = xmlFields(user);
      expect(userXml.fields).toMatchObject({ id: '2', name: 'Alice Author', email: 'alice@example.com', role: 'author' });
      expect(Object.keys(userXml.fields).sort()).toEqual(['avatarUrl', 'createdAt', 'email', 'id', 'name', 'role', 'updatedAt']);
      expect(userXml.links).toEqual({ self: '/users/2', posts: '/users/2/posts' });
    });

    it('lists: <posts> of <post>, <comments> of <comment>, <users> of <user>', async () => {
      const posts = parseXml((await get('/posts?limit=3', 'application/xml').expect(200)).text);
      const json = (await get('/posts?limit=3').expect(200)).body as { id: number }[];
      expect(posts.name).toBe('posts');
      expect(posts.children.map((child) => child.name)).toEqual(['post', 'post', 'post']);
      expect(posts.children.map((child) => Number(xmlFields(child).fields.id))).toEqual(json.map((post) => post.id));
      expect(xmlFields(posts.children[0]).links.self).toBe(`/posts/${json[0].id}`);

      const comments = parseXml((await get('/posts/1/comments?limit=2', 'application/xml').expect(200)).text);
      expect(comments.name).toBe('comments');
      expect(comments.children.map((child) => xmlFields(child).fields.id)).toEqual(['1', '2']);

      const users = parseXml((await get('/users?limit=3', 'application/xml').expect(200)).text);
      expect(users.name).toBe('users');
      expect(users.children.map((child) => xmlFields(child).fields.email)).toEqual([
        'admin@example.com',
        'alice@example.com',
        'bob@example.com',
      ]);

      const empty = await createPost(app, app.tokens.bob);
      const none = parseXml((await get(`/posts/${empty.id}/comments`, 'application/xml').expect(200)).text);
      expect(none).toMatchObject({ name: 'comments', children: [] });
    });
  });

  describe('HTML', () => {
    it('the post page: title, body, author name and avatar, comments with their authors, <a href> links', async () => {
      const response = await get('/posts/1', 'text/html').expect(200);
      const html = response.text;
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toContain('Welcome to the blog service');
      expect(html).toMatch(/<h1>Welcome to the blog service<\/h1>/);
      expect(html).toContain('Posts, users and comments over REST and GraphQL, with live subscriptions.');
      expect(html).toContain('Alice Author');
      // The demo users have no avatarUrl: the page draws their initials inline, asking no other host.
      expect(html).toMatch(/<img\b[^>]*\bsrc="data:image\/svg\+xml,[^"]*"[^>]*alt="Alice Author"/);
      expect(html).toContain('Great to be here!');
      expect(html).toContain('Looking forward to more posts.');
      expect(html).toContain('Bob Writer');
      const hrefs = anchors(html);
      for (const href of ['/users/2', '/users/3', '/comments/1', '/comments/2']) expect(hrefs).toContain(href);
      expect(html).not.toMatch(/password/i);
    });

    it('a new comment shows on the post page with its author', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Commented' });
      await createComment(app, app.tokens.bob, post.id, 'A fresh remark');
      const html = (await get(`/posts/${post.id}`, 'text/html').expect(200)).text;
      expect(html).toContain('A fresh remark');
      expect(html).toContain('Bob Writer');
      expect(anchors(html)).toContain('/users/3');
    });

    it('comment, user and list pages are readable and linked', async () => {
      const comment = (await get('/comments/2', 'text/html').expect(200)).text;
      expect(comment).toContain('Looking forward to more posts.');
      expect(comment).toContain('Bob Writer');
      expect(anchors(comment)).toEqual(expect.arrayContaining(['/users/3', '/posts/1']));

      const user = (await get('/users/2', 'text/html').expect(200)).text;
      expect(user).toContain('Alice Author');
      expect(anchors(user)).toContain('/users/2/posts');
      expect(user).not.toMatch(/password/i);

      const list = await get('/posts?limit=2', 'text/html').expect(200);
      const listLinks = anchors(list.text);
      const ids = ((await get('/posts?limit=2').expect(200)).body as { id: number }[]).map((post) => post.id);
      for (const id of ids) expect(listLinks).toContain(`/posts/${id}`);
      // The next page is a link in the page as well as in the header.
      const next = nextLink(list);
      expect(next).not.toBeNull();
      expect(listLinks).toContain(next!.replaceAll('&', '&amp;'));
    });
  });

  describe('escaping of user text', () => {
    const TITLE = '<script>alert(1)</script>';
    const BODY = 'Tom & Jerry ]]> <b>bold</b> "double" \'single\' &amp; &#60; &nbsp; <![CDATA[x]]> </post>';

    it('HTML shows it as text; XML stays well-formed and carries it exactly; JSON is unchanged', async () => {
      const post = await createPost(app, app.tokens.alice, { title: TITLE, body: BODY });
      const comment = await createComment(app, app.tokens.bob, post.id, '<img src=x onerror=alert(2)> & ]]>');

      const html = (await get(`/posts/${post.id}`, 'text/html').expect(200)).text;
      expect(html).not.toContain('<script>');
      expect(html).not.toContain('<b>bold</b>');
      expect(html).not.toContain('<img src=x');
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).toContain('Tom &amp; Jerry ]]&gt;');
      expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
      // The page title is escaped as well.
      expect(html).toMatch(/<title>&lt;script&gt;/);

      for (const path of [`/posts/${post.id}`, `/comments/${comment.id}`, '/posts?limit=5', `/posts/${post.id}/comments`]) {
        const page = (await get(path, 'text/html').expect(200)).text;
        expect(page, path).not.toContain('<script>');
        expect(page, path).not.toContain('<img src=x');
      }

      const xml = (await get(`/posts/${post.id}`, 'application/xml').expect(200)).text;
      const root = parseXml(xml);
      expect(xmlFields(root).fields).toMatchObject({ title: TITLE, body: BODY });
      // xmlbuilder2's own reader agrees on the title (it decodes "&amp;#60;" twice, so not on the body).
      const dom = [...create(xml).root().node.childNodes].map((node) => [node.nodeName, node.textContent]);
      expect(dom).toContainEqual(['title', TITLE]);
      const list = parseXml((await get('/posts?limit=5', 'application/xml').expect(200)).text);
      const listed = list.children.find((child) => xmlFields(child).fields.id === String(post.id))!;
      expect(xmlFields(listed).fields.title).toBe(TITLE);
      const commentXml = parseXml((await get(`/comments/${comment.id}`, 'application/xml').expect(200)).text);
      expect(xmlFields(commentXml).fields.body).toBe('<img src=x onerror=alert(2)> & ]]>');

      const json = await get(`/posts/${post.id}`).expect(200);
      expect(json.body).toMatchObject({ title: TITLE, body: BODY });
    });

    it('an author name with markup is escaped on the pages that show it', async () => {
      const email = `markup.${Date.now()}@example.com`;
      const created = await http()
        .post('/users')
        .send({ name: '<i>Eve</i> & "Co"', email, password: 'eve-password', avatarUrl: 'https://example.com/a.png?x=1&y="2"' })
        .expect(201);
      const token = await tokenFor(app, { email, password: 'eve-password' });
      const post = await createPost(app, token, { title: 'By Eve' });
      await http().post(`/posts/${post.id}/comments`).set(bearer(token)).send({ body: 'self-comment' }).expect(201);
      for (const path of [`/posts/${post.id}`, `/users/${created.body.id}`, '/posts?limit=3']) {
        const page = (await get(path, 'text/html').expect(200)).text;
        expect(page, path).not.toContain('<i>Eve</i>');
        expect(page, path).toContain('&lt;i&gt;Eve&lt;/i&gt; &amp;');
      }
      const postPage = (await get(`/posts/${post.id}`, 'text/html').expect(200)).text;
      expect(postPage).not.toContain('y="2"');
      const userXml = parseXml((await get(`/users/${created.body.id}`, 'application/xml').expect(200)).text);
      expect(xmlFields(userXml).fields).toMatchObject({ name: '<i>Eve</i> & "Co"', avatarUrl: 'https://example.com/a.png?x=1&y="2"' });
    });
  });
});
