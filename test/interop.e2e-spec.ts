import request, { type Response } from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearer, tokenFor } from './support/auth.js';
import { expectProblem } from './support/problems.js';
import { createComment, createPost, createUser, nextLink, parseXml, xmlFields } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/** What stock clients send: Spring/Feign, .NET, fetch wrappers, HAL clients, browsers. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const ITEM_PATHS = ['/posts/1', '/comments/1', '/users/2'];
const LIST_PATHS: [string, string][] = [
  ['/posts', 'posts'],
  ['/posts?limit=2', 'posts'],
  ['/posts?authorId=2&limit=1', 'posts'],
  ['/posts/1/comments', 'comments'],
  ['/users', 'users'],
  ['/users/2/posts', 'posts'],
];

type HalLink = { href: string };
type HalCollection = { _links: Record<string, HalLink>; _embedded: Record<string, { _links: Record<string, HalLink> }[]> };

/** The HAL draft's shape of a collection: `_links` of `{href}` objects, `_embedded` of resources that carry their own `self`. */
function expectHalCollection(body: unknown, plural: string, self: string): HalCollection {
  const hal = body as HalCollection;
  expect(Object.keys(hal).sort()).toEqual(['_embedded', '_links']);
  expect(hal._links.self).toEqual({ href: self });
  for (const [rel, link] of Object.entries(hal._links)) {
    expect(['self', 'next'], rel).toContain(rel);
    expect(Object.keys(link), rel).toEqual(['href']);
    expect(link.href, rel).toMatch(/^\//);
  }
  expect(Object.keys(hal._embedded)).toEqual([plural]);
  expect(Array.isArray(hal._embedded[plural])).toBe(true);
  for (const item of hal._embedded[plural]) expect(item._links.self.href).toMatch(new RegExp(`^/${plural}/\\d+$`));
  return hal;
}

/** Every `href` of an `<a>`, with its `rel`, in an HTML page. */
function anchors(html: string): { rel: string | null; href: string }[] {
  return [...html.matchAll(/<a\b([^>]*)>/g)].map(([, attributes]) => ({
    rel: /\brel="([^"]*)"/.exec(attributes)?.[1] ?? null,
    href: /\bhref="([^"]*)"/.exec(attributes)![1].replaceAll('&amp;', '&'),
  }));
}

/** Everything a browser would fetch to show the page: src of any element, href of <link>, url() in styles. */
function subresources(html: string): string[] {
  const sources = [...html.matchAll(/<(?!a\b)\w+\b[^>]*\b(?:src|srcset|data|poster)="([^"]*)"/g)].map((match) => match[1]);
  // A <link> to another document (the feed, the canonical address) is a hyperlink a browser does not load.
  const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]*)"/g)].filter((match) => !/\brel="(alternate|canonical)"/.test(match[0])).map((match) => match[1]);
  const urls = [...html.matchAll(/url\(\s*['"]?([^'")]*)/g)].map((match) => match[1]);
  return [...sources, ...links, ...urls].map((value) => value.replaceAll('&amp;', '&'));
}

const isOwnOrInline = (url: string) => url.startsWith('data:') || (url.startsWith('/') && !url.startsWith('//'));

function expectHtmlProblem(response: Response, status: number): string {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  expect(response.text).toMatch(/^<!doctype html>/i);
  expect(response.text).toContain(`<h1>${status} `);
  expect(response.text).not.toMatch(/"type"\s*:/);
  expect(String(response.headers.vary).toLowerCase()).toContain('accept');
  return response.text;
}

describeEachDatabase('interop with stock clients', (kind) => {
  const app = useApp(kind, { signIn: ['alice', 'bob'] });
  const http = () => request(app.server);
  const get = (path: string, accept: string) => http().get(path).set('Accept', accept);

  describe('Accept with media-type parameters', () => {
    it('parameters other than q do not make a type unacceptable, on every GET', async () => {
      const cases: [string, RegExp][] = [
        ['application/json; charset=utf-8', /^application\/json; charset=utf-8$/],
        ['application/json;charset=UTF-8', /^application\/json; charset=utf-8$/],
        ['application/hal+json; profile="https://example.com/profiles/blog, v=2"', /^application\/hal\+json; charset=utf-8$/],
        ['application/xml; charset=utf-8', /^application\/xml; charset=utf-8$/],
        ['text/html; level=1', /^text\/html; charset=utf-8$/],
        ['application/json; charset=utf-8, text/plain; format=flowed', /^application\/json; charset=utf-8$/],
      ];
      for (const path of [...ITEM_PATHS, ...LIST_PATHS.map(([list]) => list)]) {
        for (const [accept, type] of cases) {
          const response = await get(path, accept);
          expect(response.status, `${path} ${accept}: ${response.text}`).toBe(200);
          expect(response.headers['content-type'], `${path} ${accept}`).toMatch(type);
        }
      }
      const json = await get('/posts/1', 'application/json; charset=utf-8').expect(200);
      expect(json.body).toEqual((await http().get('/posts/1').expect(200)).body);
    });

    it('q still decides, wherever it stands among the parameters', async () => {
      const cases: [string, string][] = [
        ['application/xml; charset=utf-8; q=0.2, text/html; level=1; q=0.9', 'text/html; charset=utf-8'],
        ['text/html; q=0.1; level=1, application/json; charset=utf-8', 'application/json; charset=utf-8'],
        ['application/json; q=0.5; charset=utf-8, application/hal+json; profile=x', 'application/hal+json; charset=utf-8'],
      ];
      for (const [accept, type] of cases) {
        const response = await get('/posts/1', accept).expect(200);
        expect(response.headers['content-type'], accept).toBe(type);
      }
      for (const accept of ['application/json; charset=utf-8; q=0', 'image/png; charset=utf-8', 'text/plain; charset=utf-8']) {
        expectProblem(await get('/posts/1', accept), 406, 'NOT_ACCEPTABLE');
      }
    });

    it('text/xml is the same XML, named text/xml', async () => {
      const xml = await get('/posts/1', 'application/xml').expect(200);
      const textXml = await get('/posts/1', 'text/xml').expect(200);
      expect(textXml.headers['content-type']).toBe('text/xml; charset=utf-8');
      expect(textXml.text).toBe(xml.text);
      const list = parseXml((await get('/posts?limit=2', 'text/xml; charset=utf-8').expect(200)).text);
      expect(list.name).toBe('posts');
      expect(list.children.map((child) => child.name)).toEqual(['post', 'post']);
      expect(xmlFields(parseXml((await get('/users/2', 'text/xml').expect(200)).text)).links.self).toBe('/users/2');
      // application/xml stays the name when both are equally acceptable, and q decides between them.
      expect((await get('/posts/1', 'application/xml, text/xml').expect(200)).headers['content-type']).toBe('application/xml; charset=utf-8');
      expect((await get('/posts/1', 'application/xml;q=0.5, text/xml').expect(200)).headers['content-type']).toBe('text/xml; charset=utf-8');
      // text/* still means HTML.
      expect((await get('/posts/1', 'text/*').expect(200)).headers['content-type']).toBe('text/html; charset=utf-8');
      expect(expectProblem(await get('/posts/1', 'image/png'), 406).detail).toContain('text/xml');
    });
  });

  describe('HAL collections', () => {
    it('every list is {_links: {self, next?}, _embedded: {<plural>: items}}, the items as in JSON', async () => {
      for (const [path, plural] of LIST_PATHS) {
        const json = await get(path, 'application/json').expect(200);
        expect(Array.isArray(json.body), path).toBe(true);
        const response = await get(path, 'application/hal+json').expect(200);
        expect(response.headers['content-type']).toBe('application/hal+json; charset=utf-8');
        const hal = expectHalCollection(JSON.parse(response.text), plural, path);
        expect(hal._embedded[plural], path).toEqual(json.body);
        // The Link header stays, and says what `next` says.
        expect(nextLink(response), path).toBe(hal._links.next?.href ?? null);
        expect(nextLink(json), path).toBe(hal._links.next?.href ?? null);
      }
    });

    it('a HAL client reaches every item by following next', async () => {
      const author = await createUser(app);
      for (let index = 0; index < 5; index++) await createPost(app, author.token, { title: `HAL paging ${index}` });
      const expected = ((await get(`/users/${author.id}/posts?limit=100`, 'application/json').expect(200)).body as { id: number }[]).map((post) => post.id);
      expect(expected).toHaveLength(5);
      const seen: number[] = [];
      let href: string | undefined = `/users/${author.id}/posts?limit=2`;
      let pages = 0;
      while (href !== undefined) {
        const response = await get(href, 'application/hal+json').expect(200);
        const hal = expectHalCollection(JSON.parse(response.text), 'posts', href);
        seen.push(...hal._embedded.posts.map((post) => (post as unknown as { id: number }).id));
        href = hal._links.next?.href;
        pages++;
        expect(pages).toBeLessThan(10);
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(expected);
    });

    it('an empty list embeds an empty array and has no next; a single resource keeps the JSON body', async () => {
      const post = await createPost(app, app.tokens.alice);
      const response = await get(`/posts/${post.id}/comments`, 'application/hal+json').expect(200);
      expect(JSON.parse(response.text)).toEqual({ _links: { self: { href: `/posts/${post.id}/comments` } }, _embedded: { comments: [] } });
      expect(response.headers.link).toBeUndefined();
      const one = await get(`/posts/${post.id}`, 'application/hal+json').expect(200);
      // Anonymous: without the revisions link its author got.
      const { revisions: _revisions, ...links } = post._links as Record<string, unknown>;
      expect(JSON.parse(one.text)).toEqual({ ...post, _links: links });
    });
  });

  describe('methods', () => {
    const cases: [string, string, string][] = [
      ['PUT', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
      ['POST', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
      ['PUT', '/posts', 'GET, HEAD, POST'],
      ['DELETE', '/posts', 'GET, HEAD, POST'],
      ['PATCH', '/posts/1/comments', 'GET, HEAD, POST'],
      ['PUT', '/comments/1', 'GET, HEAD, PATCH, DELETE'],
      ['POST', '/users/2', 'GET, HEAD, PATCH, DELETE'],
      ['DELETE', '/users/2/posts', 'GET, HEAD'],
      ['GET', '/users/2/tokens', 'DELETE'],
      ['PUT', '/users/2/api-keys', 'GET, HEAD, POST'],
      ['GET', '/users/2/api-keys/1', 'DELETE'],
      ['GET', '/tokens', 'POST'],
      ['DELETE', '/health', 'GET, HEAD'],
      ['POST', '/metrics', 'GET, HEAD'],
      ['PUT', '/posts/999999', 'GET, HEAD, PATCH, DELETE'],
      ['OPTIONS', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
    ];

    it('a method the path does not serve: 405 problem+json with Allow listing what it serves', async () => {
      for (const [method, path, allow] of cases) {
        const response = await http()[method.toLowerCase() as 'get'](path).set(bearer(app.tokens.alice));
        const problem = expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
        expect(response.headers.allow, `${method} ${path}`).toBe(allow);
        expect(problem.title).toBe('Method Not Allowed');
        expect(problem.instance).toBe(path);
      }
      const head = await http().head('/tokens').expect(405);
      expect(head.headers.allow).toBe('POST');
      expect(head.text ?? '').toBe('');
    });

    it('Allow tells the truth: each method it lists is routed (never 405), and a body sent with PUT changes nothing', async () => {
      for (const [, path, allow] of cases) {
        for (const method of allow.split(', ')) {
          const response = await http()[method.toLowerCase() as 'get'](path);
          expect(response.status, `${method} ${path}`).not.toBe(405);
          // Routed: a 404 only where the resource itself is missing.
          if (!path.includes('999999')) expect(response.status, `${method} ${path}`).not.toBe(404);
        }
      }
      const before = await http().get('/posts/1').expect(200);
      await http().put('/posts/1').set(bearer(app.tokens.alice)).send({ title: 'Replaced' }).expect(405);
      expect((await http().get('/posts/1').expect(200)).body).toEqual(before.body);
    });

    it('GraphQL lists what it serves too', async () => {
      const response = await http().put('/graphql').send({ query: '{ __typename }' });
      expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toMatch(/\bGET\b/);
      expect(response.headers.allow).toMatch(/\bPOST\b/);
    });

    it('an unknown path stays 404 whatever the method', async () => {
      for (const [method, path] of [['GET', '/nope'], ['PUT', '/nope'], ['OPTIONS', '/nope'], ['DELETE', '/posts/1/nope'], ['GET', '/posts/'], ['POST', '/users/2/posts/3']]) {
        const response = await http()[method.toLowerCase() as 'get'](path);
        expectProblem(response, 404, 'NOT_FOUND');
        expect(response.headers.allow, `${method} ${path}`).toBeUndefined();
      }
      // A route that serves the method but has nothing there (a static asset) answers 404, not 405.
      for (const path of ['/docs/nothing.js', '/graphql/ide/nothing.js']) {
        const response = await http().get(path);
        expect(response.status, path).toBe(404);
        expect(response.headers.allow, path).toBeUndefined();
      }
    });
  });

  describe('bodiless requests with Content-Type: application/json', () => {
    it('DELETE with an empty JSON body is accepted, on every DELETE route', async () => {
      const user = await createUser(app);
      const post = await createPost(app, user.token);
      const comment = await createComment(app, user.token, post.id);
      const key = await http().post(`/users/${user.id}/api-keys`).set(bearer(user.token)).send({ name: 'interop', scopes: ['read'] });
      expect(key.status, key.text).toBe(201);
      const deletes: [string, string][] = [
        [`/comments/${comment.id}`, 'application/json'],
        [`/posts/${post.id}`, 'application/json; charset=utf-8'],
        [`/users/${user.id}/api-keys/${key.body.id}`, 'application/merge-patch+json'],
      ];
      for (const [path, type] of deletes) {
        const response = await http().delete(path).set(bearer(user.token)).set('Content-Type', type).send('');
        expect(response.status, `${path}: ${response.text}`).toBe(204);
      }
      await http().get(`/posts/${post.id}`).expect(404);
      await http().get(`/comments/${comment.id}`).expect(404);
      // Sign out everywhere (no body sent at all, only the header), then the user itself.
      await http().delete(`/users/${user.id}/tokens`).set(bearer(user.token)).set('Content-Type', 'application/json').expect(204);
      const token = await tokenFor(app, { email: user.email, password: user.password });
      await http().delete(`/users/${user.id}`).set(bearer(token)).set('Content-Type', 'application/json').send('').expect(204);
      await http().get(`/users/${user.id}`).expect(404);
    });

    it('GET and HEAD with an empty JSON body are answered as without it', async () => {
      const plain = await http().get('/posts/1').expect(200);
      const withHeader = await http().get('/posts/1').set('Content-Type', 'application/json').send('').expect(200);
      expect(withHeader.body).toEqual(plain.body);
      await http().head('/posts/1').set('Content-Type', 'application/json').expect(200);
      await http().get('/posts').set('Content-Type', 'application/json; charset=utf-8').expect(200);
    });

    it('a POST or PATCH that needs a body still answers 400 to an empty one, and changes nothing', async () => {
      const post = await createPost(app, app.tokens.alice);
      const before = await http().get(`/posts/${post.id}`).expect(200);
      const writes: [string, string, string | undefined][] = [
        ['post', '/posts', app.tokens.alice],
        ['patch', `/posts/${post.id}`, app.tokens.alice],
        ['post', `/posts/${post.id}/comments`, app.tokens.bob],
        ['post', '/users', undefined],
        ['patch', '/users/2', app.tokens.alice],
        ['post', '/tokens', undefined],
      ];
      for (const [method, path, token] of writes) {
        for (const send of [true, false]) {
          let call = http()[method as 'post'](path).set('Content-Type', 'application/json');
          if (token) call = call.set(bearer(token));
          const response = send ? await call.send('') : await call;
          const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
          expect(problem.detail, `${method} ${path}`).toMatch(/body/i);
        }
      }
      // A PATCH with no body at all is refused the same way, not taken as an empty change.
      await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).expect(400);
      const after = await http().get(`/posts/${post.id}`).expect(200);
      expect(after.headers.etag).toBe(before.headers.etag);
      expect(after.body).toEqual(before.body);
      expect(((await http().get(`/posts/${post.id}/comments`).expect(200)).body as unknown[]).length).toBe(0);
      // Malformed JSON is still malformed.
      expectProblem(await http().post('/posts').set(bearer(app.tokens.alice)).set('Content-Type', 'application/json').send('{'), 400, 'BAD_USER_INPUT');
      expectProblem(await http().delete(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('Content-Type', 'application/json').send('{'), 400, 'BAD_USER_INPUT');
    });
  });

  describe('HTML', () => {
    it('every _links entry of a resource page is an <a href> with its rel, the post page linking its comments', async () => {
      const post = await createPost(app, app.tokens.alice, { title: 'Linked' });
      const comment = await createComment(app, app.tokens.bob, post.id);
      for (const path of [...ITEM_PATHS, `/posts/${post.id}`, `/comments/${comment.id}`]) {
        const json = await http().get(path).expect(200);
        const html = (await get(path, 'text/html').expect(200)).text;
        const links = anchors(html);
        for (const [rel, value] of Object.entries(json.body._links as Record<string, { href: string } | { href: string }[]>)) {
          // An array of links (a post's tags) is one <a> per entry, under the entry's rel (tag).
          for (const link of [value].flat()) expect(links, `${path} ${rel}`).toContainEqual({ rel: Array.isArray(value) ? rel.replace(/s$/, '') : rel, href: link.href });
        }
      }
      const page = (await get(`/posts/${post.id}`, 'text/html').expect(200)).text;
      expect(anchors(page)).toContainEqual({ rel: 'comments', href: `/posts/${post.id}/comments` });
    });

    it('the pages make no outside request: avatars are inline SVG, everything else is the service itself', async () => {
      const pages = ['/posts/1', '/posts/2', '/comments/1', '/comments/3', '/users/1', '/users/2', '/users/3', '/posts', '/users', '/posts/1/comments'];
      let avatars = 0;
      for (const path of pages) {
        const response = await get(path, BROWSER_ACCEPT).expect(200);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        for (const url of subresources(response.text)) expect(isOwnOrInline(url), `${path} loads ${url}`).toBe(true);
        avatars += [...response.text.matchAll(/<img\b[^>]*class="avatar"[^>]*src="data:image\/svg\+xml,/g)].length;
      }
      expect(avatars).toBeGreaterThan(0);

      const page = (await get('/posts/1', 'text/html').expect(200)).text;
      const src = /<img\b[^>]*\bsrc="(data:image\/svg\+xml,[^"]*)"[^>]*alt="Alice Author"/.exec(page)![1];
      const svg = decodeURIComponent(src.slice('data:image/svg+xml,'.length).replaceAll('&amp;', '&'));
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
      expect(svg).toContain('>AA</text>');
      expect(svg).not.toMatch(/<script|on\w+=|href=/i);

      // The Content-Security-Policy of the page lets those images show.
      const csp = String((await get('/posts/1', 'text/html')).headers['content-security-policy']);
      const imgSrc = /(?:^|;)\s*img-src ([^;]*)/.exec(csp)?.[1].split(/\s+/) ?? [];
      expect(imgSrc).toEqual(expect.arrayContaining(["'self'", 'data:']));
    });

    it('a user who set an avatarUrl gets it; the initials of anyone else are letters only, whatever their name', async () => {
      const email = `avatar.${Date.now()}@example.com`;
      const created = await http()
        .post('/users')
        .send({ name: '"><script>x</script> Zoë', email, password: 'avatar-password', avatarUrl: 'https://example.com/me.png' })
        .expect(201);
      expect((await get(`/users/${created.body.id}`, 'text/html').expect(200)).text).toContain('src="https://example.com/me.png"');
      const token = await tokenFor(app, { email, password: 'avatar-password' });
      await http().patch(`/users/${created.body.id}`).set(bearer(token)).send({ avatarUrl: null }).expect(200);
      const html = (await get(`/users/${created.body.id}`, 'text/html').expect(200)).text;
      const src = /<img\b[^>]*\bsrc="(data:image\/svg\+xml,[^"]*)"/.exec(html)![1];
      expect(decodeURIComponent(src.slice('data:image/svg+xml,'.length))).toContain('>SZ</text>');
      expect(html).not.toContain('<script>');
    });

    it('an error asked for by a browser is a small HTML page with the same status and headers', async () => {
      const missing = expectHtmlProblem(await get('/posts/999999', BROWSER_ACCEPT), 404);
      expect(missing).toContain('Post 999999 does not exist');
      expect(missing).toContain('NOT_FOUND');

      const unauthenticated = await http().post('/posts').set('Accept', 'text/html').send({ title: 't', body: 'b' });
      expectHtmlProblem(unauthenticated, 401);
      expect(unauthenticated.headers['www-authenticate']).toMatch(/^Bearer/);

      const notAllowed = await http().put('/posts/1').set('Accept', BROWSER_ACCEPT);
      expectHtmlProblem(notAllowed, 405);
      expect(notAllowed.headers.allow).toBe('GET, HEAD, PATCH, DELETE');

      const invalid = await http().post('/users').set('Accept', 'text/html').send({ name: '<b>x</b>', email: 'not-an-email', password: 'p' });
      const page = expectHtmlProblem(invalid, 400);
      expect(page).toContain('<code>email</code>');

      expectHtmlProblem(await get('/nope', 'text/html'), 404);
    });

    it('user input in an HTML error is escaped', async () => {
      const unknownField = await http().post('/users').set('Accept', 'text/html').send({ '<img src=x onerror=alert(1)>': 1 });
      const fields = expectHtmlProblem(unknownField, 400);
      expect(fields).not.toContain('<img src=x');
      expect(fields).toContain('<p>&lt;img src=x onerror=alert(1)&gt; is not a known or writable field;');
      expect(fields).toContain('<li><code>&lt;img src=x onerror=alert(1)&gt;</code>:');
    });

    it('problem+json stays the answer to everyone else (XML clients get problem+xml: test/problem-xml.e2e-spec.ts)', async () => {
      for (const accept of [undefined, '*/*', 'application/json', 'application/json, application/xml', 'application/xml;q=0.5, */*', 'text/html;q=0.5, application/json', 'application/json, text/html']) {
        const call = http().get('/posts/999999');
        const response = accept === undefined ? await call : await call.set('Accept', accept);
        expectProblem(response, 404, 'NOT_FOUND');
      }
      // Outside the negotiated routes, an Accept of none of ours gets problem+json too.
      expectProblem(await http().post('/tokens').set('Accept', 'image/png').send({}), 400, 'BAD_USER_INPUT');
      expectProblem(await http().put('/posts/1').set('Accept', 'application/json; charset=utf-8'), 405, 'METHOD_NOT_ALLOWED');
    });
  });
});

describeEachDatabase('interop with CORS_ORIGINS set', (kind) => {
  const ORIGIN = 'https://app.example.com';
  const app = useApp(kind, { env: { CORS_ORIGINS: ORIGIN }, signIn: [] });

  it('a preflight is still answered on every known path, and a 405 carries the CORS headers', async () => {
    for (const [path, method] of [['/posts/1', 'DELETE'], ['/posts', 'POST'], ['/users/2', 'PATCH'], ['/graphql', 'POST']]) {
      const preflight = await request(app.server)
        .options(path)
        .set('Origin', ORIGIN)
        .set('Access-Control-Request-Method', method)
        .set('Access-Control-Request-Headers', 'content-type,authorization');
      expect(preflight.status, `${path} ${preflight.text}`).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(preflight.headers['access-control-allow-methods']).toContain(method);
    }
    const notAllowed = await request(app.server).put('/posts/1').set('Origin', ORIGIN);
    expectProblem(notAllowed, 405, 'METHOD_NOT_ALLOWED');
    expect(notAllowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(notAllowed.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
  });
});
