import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { checkStructure } from './support/openapi-structure.js';
import { POST_KEYS } from './support/resources.js';

/** CONTRACT §2, in OpenAPI's path syntax (/graphql and /metrics are not resource routes; /docs is the UI itself). */
const OPERATIONS: [string, string][] = [
  ['get', '/posts'],
  ['post', '/posts'],
  ['get', '/posts/{id}'],
  ['patch', '/posts/{id}'],
  ['delete', '/posts/{id}'],
  ['get', '/posts/{id}/comments'],
  ['post', '/posts/{id}/comments'],
  ['get', '/comments/{id}'],
  ['patch', '/comments/{id}'],
  ['delete', '/comments/{id}'],
  ['get', '/comments'],
  ['patch', '/comments'],
  ['get', '/users'],
  ['post', '/users'],
  ['get', '/users/{id}'],
  ['get', '/users/{id}/posts'],
  ['get', '/users/{id}/export'],
  ['patch', '/users/{id}'],
  ['delete', '/users/{id}'],
  ['post', '/tokens'],
  ['get', '/events'],
  ['get', '/events/{cursor}'],
  ['get', '/health'],
  ['post', '/webhooks'],
  ['get', '/webhooks'],
  ['get', '/webhooks/{id}'],
  ['patch', '/webhooks/{id}'],
  ['delete', '/webhooks/{id}'],
  ['get', '/webhooks/{id}/deliveries'],
  ['get', '/audit'],
  ['get', '/audit/{id}'],
  ['get', '/tags'],
  ['post', '/tags'],
  ['get', '/tags/{id}'],
  ['patch', '/tags/{id}'],
  ['delete', '/tags/{id}'],
  ['get', '/media'],
  ['post', '/media'],
  ['get', '/media/{id}'],
  ['patch', '/media/{id}'],
  ['delete', '/media/{id}'],
  ['get', '/media/{id}/file'],
];

/** The writable fields each request body must describe. */
const BODIES: Record<string, string[]> = {
  'post /posts': ['title', 'body', 'bodyFormat', 'slug', 'excerpt', 'metaTitle', 'metaDescription', 'canonicalUrl', 'coverImageId', 'status', 'publishAt', 'tags', 'locale', 'translationOf', 'authorId'],
  'patch /posts/{id}': ['title', 'body', 'bodyFormat', 'slug', 'excerpt', 'metaTitle', 'metaDescription', 'canonicalUrl', 'coverImageId', 'status', 'publishAt', 'tags', 'locale', 'revision'],
  'patch /media/{id}': ['alt', 'caption', 'focalPoint'],
  'post /tags': ['name'],
  'patch /tags/{id}': ['name'],
  'post /posts/{id}/comments': ['body', 'parentId'],
  'patch /comments/{id}': ['body', 'status'],
  'post /users': ['name', 'email', 'password', 'avatarUrl'],
  'patch /users/{id}': ['name', 'avatarUrl', 'password', 'currentPassword', 'role', 'commentsBlocked'],
  'post /tokens': ['email', 'password'],
  'post /webhooks': ['url', 'types', 'description'],
  'patch /webhooks/{id}': ['url', 'types', 'description', 'active'],
};

interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}
interface Operation {
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  parameters?: { name: string; in: string }[];
  security?: Record<string, string[]>[];
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { type: string; scheme?: string }> };
}

describeEachDatabase('OpenAPI', (kind) => {
  let app: TestApp;
  let spec: OpenApiDocument;
  const http = () => request(app.server);

  const resolve = (schema: Schema): Schema => {
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = spec.components.schemas?.[name];
    expect(target, schema.$ref).toBeDefined();
    return target!;
  };

  beforeAll(async () => {
    app = await startTestApp(kind);
    const response = await http().get('/docs-json').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    spec = response.body as OpenApiDocument;
  });
  afterAll(() => app?.close());

  describe('/docs-json', () => {
    it('is an OpenAPI 3 document with a title and bearer authentication', () => {
      expect(spec.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(spec.info.title).toEqual(expect.any(String));
      expect(Object.values(spec.components.securitySchemes ?? {})).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    });

    it('lists every path and method of CONTRACT §2', () => {
      for (const [method, path] of OPERATIONS) {
        expect(spec.paths[path], path).toBeDefined();
        expect(spec.paths[path][method], `${method.toUpperCase()} ${path}`).toBeDefined();
      }
      // ... and no verbs in paths, nothing that is not a resource of the contract.
      for (const path of Object.keys(spec.paths)) {
        expect(['/posts', '/comments', '/users', '/tokens', '/events', '/health', '/metrics', '/graphql', '/webhooks', '/audit', '/tags', '/feed', '/sitemap.xml', '/sitemaps', '/robots.txt', '/media'].some((root) => path.startsWith(root)), path).toBe(true);
      }
    });

    it('describes the request body of every POST and PATCH as JSON with its fields', () => {
      for (const [operation, fields] of Object.entries(BODIES)) {
        const [method, path] = operation.split(' ');
        const body = spec.paths[path][method].requestBody;
        expect(body, operation).toBeDefined();
        const schema = resolve(body!.content['application/json'].schema);
        expect(schema.type, operation).toBe('object');
        expect(Object.keys(schema.properties ?? {}).sort(), operation).toEqual([...fields].sort());
      }
      const createPost = resolve(spec.paths['/posts'].post.requestBody!.content['application/json'].schema);
      expect(createPost.required?.sort()).toEqual(['body', 'title']);
      expect(createPost.properties!.title.type).toBe('string');
      expect(createPost.properties!.authorId.type).toBe('integer');
      for (const operation of ['post /users', 'patch /users/{id}']) {
        const [method, path] = operation.split(' ');
        const schema = resolve(spec.paths[path][method].requestBody!.content['application/json'].schema);
        for (const [field, property] of Object.entries(schema.properties!)) expect(property.type, `${operation} ${field}`).toBe(field === 'commentsBlocked' ? 'boolean' : 'string');
      }
    });

    it('documents the responses: representations with _links, lists with limit and cursor, problem+json errors', () => {
      const post = spec.paths['/posts/{id}'].get.responses['200'].content!;
      expect(Object.keys(post).sort()).toEqual(['application/hal+json', 'application/json', 'application/xml', 'text/html', 'text/xml']);
      const postSchema = resolve(post['application/json'].schema);
      expect(Object.keys(postSchema.properties!).sort()).toEqual(POST_KEYS);
      const list = resolve(spec.paths['/posts'].get.responses['200'].content!['application/json'].schema);
      expect(list.type).toBe('array');
      expect((spec.paths['/posts'].get.parameters ?? []).map((parameter) => parameter.name)).toEqual(
        expect.arrayContaining(['limit', 'cursor', 'authorId']),
      );
      expect(spec.paths['/posts'].post.responses['201']).toBeDefined();
      const commentsQuery = spec.paths['/posts/{id}/comments'].get.parameters ?? [];
      expect(commentsQuery.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['limit', 'cursor', 'parentId']));
      const comment = resolve(spec.paths['/comments/{id}'].get.responses['200'].content!['application/json'].schema);
      expect(comment.properties!.parentId).toMatchObject({ type: 'integer', nullable: true });
      expect(resolve(comment.properties!._links).required?.sort()).toEqual(['author', 'post', 'replies', 'self']);
      expect(spec.paths['/posts/{id}'].delete.responses['204']).toBeDefined();
      // problem+json first (the default), then problem+xml and an HTML page, as Accept picks (never HTML for a 406).
      expect(Object.keys(spec.paths['/posts/{id}'].get.responses['404'].content!)).toEqual(['application/problem+json', 'application/problem+xml', 'text/html']);
      expect(Object.keys(spec.paths['/tokens'].post.responses['401'].content!)).toEqual(['application/problem+json', 'application/problem+xml', 'text/html']);
      expect(Object.keys(spec.paths['/posts/{id}'].get.responses['406'].content!)).toEqual(['application/problem+json', 'application/problem+xml']);
      expect(spec.paths['/posts/{id}'].patch.responses['412']).toBeDefined();
    });
  });

  describe('/docs-json, as a whole', () => {
    it('passes the structural checks of an OpenAPI 3.0 document (what Redocly\'s recommended rules look at)', () => {
      expect(checkStructure(spec as unknown as Record<string, unknown>)).toEqual([]);
    });

    it('the structural checks can fail: a broken copy of the document is refused', () => {
      const broken = structuredClone(spec) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown> } };
      delete broken.paths['/posts'].get.operationId;
      delete broken.paths['/posts'].get.summary;
      broken.paths['/posts/{id}'].get.responses = { '200': { description: 'only' } };
      broken.paths['/posts/{id}'].get.parameters = [];
      broken.paths['/users'].get.tags = ['undeclared'];
      broken.paths['/users'].post.oops = true;
      broken.components.schemas.Unused = { type: 'object' };
      broken.components.schemas.Post = { type: 'object', properties: { id: { type: 'integer', const: 1 } } };
      const problems = checkStructure(broken as unknown as Record<string, unknown>).join('\n');
      for (const expected of [
        /GET \/posts: no operationId/,
        /GET \/posts: no summary/,
        /GET \/posts\/\{id\}: no 4xx response/,
        /GET \/posts\/\{id\}: path parameter id not declared/,
        /GET \/users: tag undeclared is not declared/,
        /POST \/users: unknown key oops/,
        /components\/schemas\/Unused is not used/,
        /keyword const is not OpenAPI 3\.0/,
      ]) {
        expect(problems).toMatch(expected);
      }
    });

    it('declares security as enforced: optional on public routes (sign-up, sign-in, reads), required where a credential is', () => {
      const optional = [{}, { bearer: [] }];
      for (const [method, path] of [['post', '/users'], ['post', '/tokens'], ['get', '/posts'], ['get', '/posts/{id}'], ['get', '/health']]) {
        expect(spec.paths[path][method].security, `${method} ${path}`).toEqual(optional);
      }
      for (const [method, path] of [['post', '/posts'], ['patch', '/users/{id}'], ['delete', '/comments/{id}'], ['get', '/users/{id}/api-keys']]) {
        expect(spec.paths[path][method].security, `${method} ${path}`).toEqual([{ bearer: [] }]);
      }
    });

    it('declares the headers each status carries, on every operation', () => {
      const header = (method: string, path: string, status: string, name: string) =>
        (spec.paths[path][method].responses[status] as { headers?: Record<string, unknown> } | undefined)?.headers?.[name];
      for (const [path, item] of Object.entries(spec.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const label = `${method} ${path}`;
          // /metrics is a plain route: it reads no credential and asks no database.
          if (path !== '/metrics') {
            expect(header(method, path, '401', 'WWW-Authenticate'), label).toBeDefined();
            expect(header(method, path, '503', 'Retry-After'), label).toBeDefined();
          }
          expect(header(method, path, '429', 'Retry-After'), label).toBeDefined();
          expect(header(method, path, '405', 'Allow'), label).toBeDefined();
          if (path.includes('{')) expect(operation.responses['414'], label).toBeDefined();
          for (const parameter of operation.parameters ?? []) {
            // Ids are integers; an event is named by its cursor, a string of a stated pattern.
            const schema = (parameter as { schema?: Schema & { pattern?: string } }).schema;
            if (parameter.in === 'path' && parameter.name === 'cursor') expect(schema?.pattern, `${label} ${parameter.name}`).toEqual(expect.any(String));
            else if (parameter.in === 'path') expect(schema?.type, `${label} ${parameter.name}`).toBe('integer');
          }
        }
      }
      for (const path of ['/posts', '/posts/{id}/comments', '/users']) expect(header('post', path, '201', 'Location'), path).toBeDefined();
      for (const path of ['/posts/{id}', '/comments/{id}', '/users/{id}']) {
        expect(header('get', path, '200', 'ETag'), path).toBeDefined();
        expect(header('get', path, '304', 'ETag'), path).toBeDefined();
        expect(header('patch', path, '200', 'ETag'), path).toBeDefined();
      }
      for (const path of ['/posts', '/users', '/posts/{id}/comments', '/users/{id}/posts']) expect(header('get', path, '200', 'Link'), path).toBeDefined();
    });

    it('types: HAL collections for lists, integer ids, date-time timestamps, nullable avatarUrl, closed request bodies', () => {
      const posts = spec.paths['/posts'].get.responses['200'].content!;
      const collection = resolve(posts['application/hal+json'].schema);
      expect(Object.keys(collection.properties!).sort()).toEqual(['_embedded', '_links']);
      expect(Object.keys(collection.properties!._embedded.properties!)).toEqual(['posts']);
      expect(Object.keys(collection.properties!._links.properties!).sort()).toEqual(['next', 'self']);
      const user = resolve(spec.paths['/users/{id}'].get.responses['200'].content!['application/json'].schema) as Schema & { additionalProperties?: unknown };
      expect(user.properties!.id.type).toBe('integer');
      expect((user.properties!.createdAt as Schema & { format?: string }).format).toBe('date-time');
      expect((user.properties!.avatarUrl as Schema & { nullable?: boolean }).nullable).toBe(true);
      expect(user.additionalProperties).toBe(false);
      // Shown only to the user themselves and to those who may block commenters: optional.
      expect(user.properties!.commentsBlocked.type).toBe('boolean');
      expect((user as Schema & { required?: string[] }).required).not.toContain('commentsBlocked');
      expect((user.properties!.role as Schema & { enum?: string[] }).enum).toEqual(['admin', 'editor', 'moderator', 'author']);
      for (const [operation] of Object.entries(BODIES)) {
        const [method, path] = operation.split(' ');
        const body = resolve(spec.paths[path][method].requestBody!.content['application/json'].schema) as Schema & { additionalProperties?: unknown };
        expect(body.additionalProperties, operation).toBe(false);
      }
      const html = spec.paths['/posts/{id}'].get.responses['200'].content!;
      expect(html['application/xml'].schema.type).toBe('string');
      expect(html['text/html'].schema.type).toBe('string');
    });
  });

  describe('/docs', () => {
    it('serves an HTML UI whose scripts and styles all load from the same origin, and answer 200', async () => {
      for (const page of ['/docs', '/docs/']) {
        const response = await http().get(page).expect(200);
        expect(response.headers['content-type']).toMatch(/^text\/html/);
        const html = response.text;
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
        expect(scripts.length).toBeGreaterThan(0);
        const urls: string[] = [];
        for (const [, attributes, inline] of scripts) {
          const src = /\bsrc\s*=\s*["']([^"']+)["']/i.exec(attributes)?.[1];
          // The CSP allows only 'self' scripts: an inline script would not run.
          expect(src, `a <script> without src: ${inline.slice(0, 80)}`).toBeDefined();
          urls.push(src!);
        }
        for (const [, href] of html.matchAll(/<link\b[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)) urls.push(href);
        expect(html).not.toMatch(/(src|href)\s*=\s*["'](https?:)?\/\/(?!www\.w3\.org)/i);
        for (const url of urls) {
          const resolved = new URL(url, `http://blog.test${page}`);
          expect(resolved.origin, url).toBe('http://blog.test');
          const asset = await http().get(resolved.pathname + resolved.search);
          expect(asset.status, resolved.pathname).toBe(200);
          if (url.endsWith('.js')) expect(asset.headers['content-type'], url).toMatch(/javascript/);
        }
      }
    });

    it('its scripts load the spec from this service, not from elsewhere', async () => {
      const init = await http().get('/docs/swagger-ui-init.js').expect(200);
      expect(init.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[^"']*\.(js|css|json)/i);
      expect(init.text).toContain('/posts/{id}/comments');
    });
  });
});
