import { GraphQLSchemaHost } from '@nestjs/graphql';
import fc from 'fast-check';
import {
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, tokenFor } from './support/auth.js';
import {
  expectGraphQLAnswer,
  expectNoServerError,
  header,
  injector,
  type InjectRequest,
  type InjectResponse,
} from './support/inject.js';
import { createComment, createPost, createUser } from './support/resources.js';
import { type DataSnapshot, snapshotData } from './support/snapshot.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 7: random and malformed input at every REST endpoint and at /graphql. Seeded, so a
 * failure reproduces: fast-check prints the seed and the path of the shrunk counterexample.
 * Whatever arrives: never a 5xx, every error is problem+json (REST) or GraphQL errors with a
 * code, nothing internal leaks, a rejected request writes nothing, and /health still answers.
 */
const SEED = 7_2026;

// -----------------------------------------------------------------------------------------
// Building blocks

/** Strings that avoid what the leak check looks for (paths, "SELECT"), since errors may echo them. */
const TEXT_CHARS = [...'abcXYZ 019\'"\\;-_=()*%$#@!?,{}[]<>&|~`^+\t\n\r–’“”é中😀\u0000\u00a0\u200b\ufe0f\ud800'];
const text = (maxLength = 12) => fc.string({ unit: fc.constantFrom(...TEXT_CHARS), maxLength });
const SQL_PAYLOADS = ["' OR 1=1 --", '"; DROP TABLE posts; --', "\\'", '’ OR ’1’=’1', "1); DROP TABLE users; --", "admin'--", '%27%20OR%201%3D1'];

const hostileString = fc.oneof(
  { weight: 6, arbitrary: text() },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SQL_PAYLOADS) },
  { weight: 1, arbitrary: text(4).map((s) => `${s}\u0000${s}`) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '   ', '\u0000') },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(201), 'y'.repeat(10_001), 'z'.repeat(100_001), 'a\ufe0f'.repeat(150)) },
  { weight: 1, arbitrary: fc.constantFrom('user@example.com', 'ALICE@EXAMPLE.COM', 'https://example.com/a.png', 'javascript:alert(1)') },
);

const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 53, 1e308, -0) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
);

const FIELDS = ['title', 'body', 'authorId', 'name', 'email', 'password', 'avatarUrl', 'role', 'postId', 'id', 'createdAt', 'version'];

/** An object with some known field names (relevant or not) and random values. */
const fieldsObject = fc
  .tuple(fc.subarray(FIELDS, { maxLength: 4 }), fc.array(anyValue, { minLength: 4, maxLength: 4 }))
  .map(([keys, values]) => Object.fromEntries(keys.map((key, index) => [key, values[index]])));

const DEEP = 10_000;
const RAW_BODIES = [
  '',
  '{',
  '}',
  '{"title":',
  '{"title": "a",}',
  "{'title': 'a'}",
  '[1,]',
  'nul',
  'undefined',
  'NaN',
  '{"title": "a"} trailing',
  '{"title": "a\u0000b", "body": "x"}',
  '\u0000',
  '\ufeff{"title": "bom"}',
  '{"__proto__": {"admin": true}, "title": "a", "body": "b"}',
  '{"constructor": {"prototype": {"admin": true}}}',
  '['.repeat(DEEP) + ']'.repeat(DEEP),
  '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP),
  `{"title": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}, "body": "b"}`,
  `{"body": ${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`,
  `{"title": "${'t'.repeat(2 * 1024 * 1024)}"}`,
];

interface Body {
  payload?: string;
  contentType?: string;
}

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/merge-patch+json',
      'application/hal+json',
      'application/json; charset=latin1',
      'text/plain',
      'text/html',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/octet-stream',
      '*/*',
      '',
      'json',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ payload: fieldsObject.map((value) => JSON.stringify(value)), contentType }) },
  { weight: 2, arbitrary: fc.record({ payload: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? 'null'), contentType }) },
  { weight: 2, arbitrary: fc.record({ payload: fc.constantFrom(...RAW_BODIES), contentType }) },
  { weight: 1, arbitrary: fc.record({ payload: fc.string({ maxLength: 30 }), contentType }) },
  { weight: 1, arbitrary: fc.constant<Body>({}) },
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Path ids that are not positive 32-bit integers in plain digits (and URL-encoded as a client would). */
const malformedId = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/^[1-9]\d{0,9}$/.test(s) && s !== '.' && s !== '..'),
    text(8).filter((s) => s.length > 0 && !/^\s*[.\d\s]*$/.test(s)),
    fc.integer({ min: -(2 ** 31), max: 0 }).map(String),
    fc.bigInt({ min: 2n ** 31n, max: 10n ** 40n }).map(String),
    fc.double({ noNaN: false }).filter((n) => !Number.isInteger(n) || n <= 0 || n > 2 ** 31).map(String),
    fc.constantFrom('1.0', '1e3', '0x10', '+1', '01', '١', '１', '1 ', ' 1', '2147483648', 'null', '[]', '{}', "1' OR '1'='1", '1;DROP TABLE posts', 'x'.repeat(99), 'x'.repeat(300)),
  )
  .map((id) => encodeURIComponent(id.replace(LONE_SURROGATE, '\ufffd')).replaceAll('.', '%2E'));
/** Raw (not encoded) path segments: bad escapes and the like. */
const rawBadId = fc.constantFrom('%', '%zz', '%00', '%C0%AF', '%E0%80', '%FF', '1%', '%2', '1%20OR%201=1', '%u0041');
/** Well-formed ids that name nothing. */
const missingId = fc.integer({ min: 100_000, max: 2_147_483_647 }).map(String);

// -----------------------------------------------------------------------------------------

describeEachDatabase('fuzz', (kind) => {
  let app: TestApp;
  let send: (request: InjectRequest) => Promise<InjectResponse>;
  let alice: string;
  let fuzzer: { id: number; token: string };
  let post: number;
  let comment: number;
  let schema: GraphQLSchema;
  let total = 0;

  beforeAll(async () => {
    app = await startTestApp(kind);
    send = injector(app);
    alice = await tokenFor(app, ALICE);
    fuzzer = await createUser(app);
    post = (await createPost(app, alice, { title: 'Fuzz target', body: 'Stays unless a valid write changes it' })).id;
    comment = (await createComment(app, alice, post, 'A comment to fuzz')).id;
    schema = app.app.get(GraphQLSchemaHost).schema;
  });
  afterAll(async () => {
    // The service is still up and well after everything it was sent.
    if (app) {
      const health = await request(app.server).get('/health');
      expect(health.status).toBe(200);
    }
    await app?.close();
  });

  const authHeader = (who: 'none' | 'alice' | 'fuzzer' | 'garbage'): Record<string, string> =>
    who === 'none'
      ? {}
      : { authorization: who === 'alice' ? `Bearer ${alice}` : who === 'fuzzer' ? `Bearer ${fuzzer.token}` : 'Bearer a.b.c' };

  /** Sends a request that may write; if it was refused, the data must be exactly as before. */
  async function sendWrite(req: InjectRequest, what: string): Promise<InjectResponse> {
    const before = await snapshotData(app);
    const response = await send(req);
    total += 1;
    expectNoServerError(response, what);
    if (response.status >= 400) expect(await snapshotData(app), `${what} was refused but changed data`).toEqual(before);
    return response;
  }

  const label = (req: InjectRequest) =>
    `${req.method} ${req.url.slice(0, 120)} ${JSON.stringify(req.headers ?? {}).slice(0, 160)} ${String(req.payload ?? '').slice(0, 160)}`;

  // ---------------------------------------------------------------------------------------
  // REST

  it('malformed and missing ids on every /{resource}/{id} route: 4xx problem+json, nothing written', async () => {
    const routes: [InjectRequest['method'], (id: string) => string][] = [
      ['GET', (id) => `/posts/${id}`],
      ['PATCH', (id) => `/posts/${id}`],
      ['DELETE', (id) => `/posts/${id}`],
      ['GET', (id) => `/posts/${id}/comments`],
      ['POST', (id) => `/posts/${id}/comments`],
      ['GET', (id) => `/comments/${id}`],
      ['PATCH', (id) => `/comments/${id}`],
      ['DELETE', (id) => `/comments/${id}`],
      ['GET', (id) => `/users/${id}`],
      ['GET', (id) => `/users/${id}/posts`],
      ['PATCH', (id) => `/users/${id}`],
      ['DELETE', (id) => `/users/${id}`],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.oneof({ weight: 5, arbitrary: malformedId }, { weight: 1, arbitrary: rawBadId }, { weight: 2, arbitrary: missingId }),
        fc.constantFrom('none', 'alice', 'garbage') as fc.Arbitrary<'none' | 'alice' | 'garbage'>,
        body,
        async ([method, path], id, who, { payload, contentType: type }) => {
          const req: InjectRequest = {
            method,
            url: path(id),
            headers: { ...authHeader(who), ...(method !== 'GET' && type !== undefined ? { 'content-type': type } : {}) },
            payload: method === 'GET' ? undefined : payload,
          };
          const response = await sendWrite(req, label(req));
          expect(response.status, label(req)).toBeGreaterThanOrEqual(400);
        },
      ),
      { seed: SEED, numRuns: 700 },
    );
  });

  it('random bodies and content types at every write: a 4xx changes nothing; never a 5xx', async () => {
    const targets: [InjectRequest['method'], () => string, 'alice' | 'fuzzer' | 'none'][] = [
      ['POST', () => '/posts', 'alice'],
      ['PATCH', () => `/posts/${post}`, 'alice'],
      ['POST', () => `/posts/${post}/comments`, 'alice'],
      ['PATCH', () => `/comments/${comment}`, 'alice'],
      ['POST', () => '/users', 'none'],
      ['PATCH', () => `/users/${fuzzer.id}`, 'fuzzer'],
      ['POST', () => '/tokens', 'none'],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), body, fc.boolean(), async ([method, path, who], { payload, contentType: type }, withIfMatch) => {
        const headers: Record<string, string> = { ...authHeader(who) };
        if (type !== undefined) headers['content-type'] = type;
        if (withIfMatch && method === 'PATCH') headers['if-match'] = '"garbage"';
        const req: InjectRequest = { method, url: path(), headers, payload };
        const response = await sendWrite(req, label(req));
        if (withIfMatch && method === 'PATCH') expect(response.status, label(req)).toBeGreaterThanOrEqual(400);
      }),
      { seed: SEED + 1, numRuns: 900 },
    );
    // The fixtures are still there (nothing random deleted them).
    expect((await send({ method: 'GET', url: `/posts/${post}` })).status).toBe(200);
    expect((await send({ method: 'GET', url: `/comments/${comment}` })).status).toBe(200);
  });

  it('query parameters (limit, cursor, authorId and junk): 200 with an array, or 400 problem+json', async () => {
    const cursorOf = (id: number) => Buffer.from(`v1:${id}`).toString('base64url');
    const validLimit = fc.integer({ min: 1, max: 100 }).map(String);
    const limit = fc.oneof(
      validLimit,
      fc.constantFrom('0', '-1', '101', '1.5', '1e2', '0x10', ' 1', '', 'abc', '99999999999999999999', '١', '-0', 'NaN', 'Infinity'),
      fc.string({ maxLength: 8 }),
    );
    const validCursor = fc.integer({ min: 1, max: 2_147_483_647 }).map(cursorOf);
    const cursor = fc.oneof(
      validCursor,
      fc.constantFrom('', 'v1:1', cursorOf(0), Buffer.from('v1:-1').toString('base64url'), Buffer.from('v1:99999999999').toString('base64url'), Buffer.from('v1:01').toString('base64url'), Buffer.from('v2:1').toString('base64url'), 'x'.repeat(65), '%00', "' OR 1=1 --"),
      fc.string({ maxLength: 16 }),
      fc.base64String({ maxLength: 20 }),
    );
    const authorId = fc.oneof(fc.integer({ min: 1, max: 5 }).map(String), fc.constantFrom('0', '-1', 'x', '1.5', '2147483648', ''), fc.string({ maxLength: 6 }));
    const param = (name: string, value: fc.Arbitrary<string>) => fc.option(value.map((v) => [name, v] as [string, string]), { nil: undefined });
    const junk = fc.option(
      fc.constantFrom('&limit=1&limit=2', '&limit[]=1', '&cursor[a]=1', '&&&', '&=', '&unknown=1', '&__proto__=1', '&constructor=1', '&%zz=1', '&limit=%zz', '&limit', '&authorId'),
      { nil: '' },
    );
    const lists = ['/posts', '/users', `/posts/${post}/comments`, '/users/2/posts'];

    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...lists),
        param('limit', limit),
        param('cursor', cursor),
        param('authorId', authorId),
        junk,
        async (path, l, c, a, extra) => {
          const params = [l, c, path === '/posts' ? a : undefined].filter((p): p is [string, string] => p !== undefined);
          const query = new URLSearchParams(params).toString();
          const url = `${path}?${query}${extra}`;
          const response = await send({ method: 'GET', url });
          total += 1;
          expectNoServerError(response, `GET ${url}`);
          expect([200, 400], `GET ${url}: ${response.body.slice(0, 200)}`).toContain(response.status);
          if (response.status === 200) expect(Array.isArray(JSON.parse(response.body))).toBe(true);
          // An oracle for the clear cases.
          const strictlyValid =
            extra === '' &&
            (l === undefined || /^([1-9]\d?|100)$/.test(l[1])) &&
            (c === undefined || /^v1:[1-9]\d{0,9}$/.test(Buffer.from(c[1], 'base64url').toString()) && Number(Buffer.from(c[1], 'base64url').toString().slice(3)) <= 2_147_483_647 && cursorOf(Number(Buffer.from(c[1], 'base64url').toString().slice(3))) === c[1]) &&
            (a === undefined || path !== '/posts' || /^[1-9]\d{0,8}$/.test(a[1]));
          const clearlyInvalid =
            (l !== undefined && !/^-?\d+$/.test(l[1].trim())) ||
            (l !== undefined && /^\d+$/.test(l[1]) && (Number(l[1]) < 1 || Number(l[1]) > 100)) ||
            (c !== undefined && !/^[A-Za-z0-9_-]+$/.test(c[1])) ||
            ['&limit[]=1', '&cursor[a]=1', '&unknown=1', '&limit=1&limit=2', '&limit=%zz'].includes(extra);
          if (strictlyValid) expect(response.status, `GET ${url}`).toBe(200);
          if (clearlyInvalid) expect(response.status, `GET ${url}`).toBe(400);
        },
      ),
      { seed: SEED + 2, numRuns: 600 },
    );
  });

  it('Accept and other request headers on every GET: a representation (with Vary: Accept) or 406, never a 5xx', async () => {
    const accept = fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/hal+json',
        'application/xml',
        'text/html',
        '*/*',
        'text/*',
        'application/*',
        'image/png',
        'application/json;q=0',
        'text/html;q=abc',
        'application/xml;q=2',
        'text/html;q=0.1, application/xml;q=0.9',
        ';;;,,,',
        ',',
        '*/*;q=0',
        'application/json; charset=utf-16',
        'text/html; level=1; q=0.5',
        'x'.repeat(8000),
        Array.from({ length: 500 }, (_, i) => `type/sub${i};q=0.${i % 10}`).join(', '),
      ),
      fc.string({ maxLength: 40 }),
    );
    const gets = ['/posts', '/posts/1', '/posts/1/comments', '/comments/1', '/users', '/users/1', '/users/2/posts', '/health', '/metrics'];
    const extra = fc.option(
      fc.constantFrom<Record<string, string>>(
        { 'if-none-match': '"' },
        { 'if-none-match': '*' },
        { 'if-none-match': 'W/"x", "y"' },
        { 'if-none-match': 'x'.repeat(5000) },
        { 'content-type': 'application/json' },
        { 'x-request-id': 'x'.repeat(300) },
        { 'accept-language': '\u00ff' },
        { 'accept-encoding': 'gzip;q=abc' },
        { range: 'bytes=0-1' },
      ),
      { nil: {} },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...gets), accept, extra, async (url, value, more) => {
        const response = await send({ method: 'GET', url, headers: { accept: value, ...more } });
        total += 1;
        const what = `GET ${url} Accept: ${value.slice(0, 80)} ${JSON.stringify(more).slice(0, 80)}`;
        expectNoServerError(response, what);
        if (url === '/health' || url === '/metrics') return;
        expect([200, 304, 406], what).toContain(response.status);
        expect(header(response, 'vary'), what).toMatch(/\bAccept\b/);
        if (response.status === 200) {
          expect(header(response, 'content-type'), what).toMatch(
            /^(application\/json|application\/hal\+json|application\/xml|text\/html); charset=utf-8$/,
          );
        }
        if (response.status === 406) expect(JSON.parse(response.body).detail, what).toContain('application/json');
      }),
      { seed: SEED + 3, numRuns: 400 },
    );
  });

  // ---------------------------------------------------------------------------------------
  // GraphQL

  /** POST /graphql with anything: a query can change nothing, a mutation with no result changed nothing. */
  async function sendGraphQL(payload: string, headers: Record<string, string>, what: string, mayWrite: boolean) {
    const before: DataSnapshot = await snapshotData(app);
    const response = await send({ method: 'POST', url: '/graphql', headers, payload });
    total += 1;
    const answer = expectGraphQLAnswer(response, what);
    const data = answer.data as Record<string, unknown> | null | undefined;
    const wrote = mayWrite && data !== null && data !== undefined && Object.values(data).some((value) => value !== null);
    if (!wrote) expect(await snapshotData(app), `${what} changed data`).toEqual(before);
    return { response, answer };
  }

  it('malformed GraphQL requests: bad JSON, wrong shapes and types, hostile content types', async () => {
    const gqlValue = fc.oneof(
      anyValue,
      fc.constantFrom('{ post(id: 1) { id } }', 'mutation { deletePost(id: 1) }', '{', '', '#', 'query', 'subscription { postCreated { id } }'),
    );
    const shaped = fc
      .record(
        { query: gqlValue, variables: anyValue, operationName: anyValue, extensions: fc.oneof(anyValue, fc.constant({ persistedQuery: { version: 1, sha256Hash: 'abc' } }), fc.constant({ persistedQuery: 'x' })) },
        { requiredKeys: [] },
      )
      .map((value) => JSON.stringify(value));
    const deepVariables = [
      JSON.stringify({ query: 'query($id: Int!) { post(id: $id) { id } }', variables: { id: 1 } }).replace('1}}', `${'['.repeat(DEEP)}${']'.repeat(DEEP)}}}`),
      `{"query": "mutation($input: CreatePostInput!) { createPost(input: $input) { id } }", "variables": {"input": ${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}}`,
      `{"query": "{ __typename }", "extensions": ${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}}`,
    ];
    const payload = fc.oneof(
      { weight: 5, arbitrary: shaped },
      { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES, ...deepVariables) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? 'null') },
      { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    );
    await fc.assert(
      fc.asyncProperty(payload, contentType, fc.constantFrom('none', 'fuzzer', 'garbage') as fc.Arbitrary<'none' | 'fuzzer' | 'garbage'>, async (text, type, who) => {
        const headers = { 'content-type': type, ...authHeader(who) };
        await sendGraphQL(text, headers, `POST /graphql ${JSON.stringify(headers)} ${text.slice(0, 200)}`, true);
      }),
      { seed: SEED + 4, numRuns: 500 },
    );
  });

  /** GraphQL literals for an argument type: mostly well-typed, sometimes not. */
  function literal(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
    const wrong = fc.constantFrom('"str"', '1.5', 'null', 'true', '[1, 2]', '{ a: 1 }', '$nope', '99999999999', '-2147483649', 'ENUM', '""', '"\\u0000"');
    const valid = (): fc.Arbitrary<string> => {
      if (isNonNullType(type)) return literal(type.ofType, depth);
      if (isListType(type)) return fc.array(literal(type.ofType, depth), { maxLength: 2 }).map((items) => `[${items.join(', ')}]`);
      if (isInputObjectType(type)) {
        if (depth <= 0) return fc.constant('{}');
        const fields = Object.values(type.getFields());
        return fc
          .subarray(fields)
          .chain((chosen) => fc.tuple(...chosen.map((field) => literal(field.type, depth - 1).map((value) => `${field.name}: ${value}`))))
          .map((parts) => `{ ${parts.join(', ')} }`);
      }
      if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
      if (isScalarType(type)) {
        switch (type.name) {
          case 'Int':
            return fc.oneof(fc.integer({ min: -3, max: 12 }), fc.integer()).map(String);
          case 'Float':
            return fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Number.isInteger(n) ? `${n}.0` : String(n)).replace('e+', 'e'));
          case 'Boolean':
            return fc.boolean().map(String);
          default:
            return fc.oneof(hostileString.filter((s) => !/[\ud800-\udfff]/.test(s)), fc.constantFrom(...SQL_PAYLOADS)).map((s) => JSON.stringify(s));
        }
      }
      return wrong;
    };
    return fc.oneof({ weight: 5, arbitrary: valid() }, { weight: 1, arbitrary: wrong });
  }

  function argumentsOf(field: GraphQLField<unknown, unknown>, depth: number): fc.Arbitrary<string> {
    const args: readonly GraphQLArgument[] = field.args;
    const extra = fc.option(fc.constantFrom('bogus: 1', 'first: -1', 'first: 100000', 'after: "nope"', 'id: 1'), { nil: undefined, freq: 8 });
    return fc
      .tuple(fc.subarray([...args]), extra)
      .chain(([chosen, more]) =>
        fc.tuple(...chosen.map((arg) => literal(arg.type, depth).map((value) => `${arg.name}: ${value}`))).map((parts) =>
          more === undefined ? parts : [...parts, more],
        ),
      )
      .map((parts) => (parts.length === 0 ? '' : `(${parts.join(', ')})`));
  }

  /** A selection set on `type`: real field names, random aliases and arguments, sometimes wrong. */
  function selection(type: GraphQLObjectType, depth: number): fc.Arbitrary<string> {
    const fields = Object.values(type.getFields());
    const one = fc.oneof(
      {
        weight: 10,
        arbitrary: fc.constantFrom(...fields).chain((field) => {
          const named = getNamedType(field.type);
          const sub: fc.Arbitrary<string> = isObjectType(named)
            ? depth > 0
              ? fc.oneof({ weight: 6, arbitrary: selection(named, depth - 1).map((s) => ` { ${s} }`) }, { weight: 1, arbitrary: fc.constant('') })
              : fc.constant(' { __typename }')
            : fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant(' { id }') });
          const alias = fc.option(fc.constantFrom('a', 'b', 'x1', 'same', field.name), { nil: undefined, freq: 4 });
          return fc.tuple(alias, argumentsOf(field, 2), sub).map(([name, args, rest]) => `${name ? `${name}: ` : ''}${field.name}${args}${rest}`);
        }),
      },
      { weight: 1, arbitrary: fc.constantFrom('__typename', 'nope', 'secret', '... on Post { id }', '... on Nope { id }', '...Missing', '__schema { types { name } }', '__type(name: "Post") { fields { name } }') },
    );
    return fc.array(one, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(' '));
  }

  it('random documents built from the schema (queries, mutations, subscriptions): answers with codes, writes only on success', async () => {
    const root = fc.oneof(
      { weight: 5, arbitrary: fc.constant('query') },
      { weight: 3, arbitrary: fc.constant('mutation') },
      { weight: 1, arbitrary: fc.constant('subscription') },
    );
    const documents = root.chain((operation) => {
      const type = operation === 'query' ? schema.getQueryType()! : operation === 'mutation' ? schema.getMutationType()! : schema.getSubscriptionType()!;
      return fc.tuple(fc.constant(operation), selection(type, 3)).map(([op, set]) => ({ operation: op, document: `${op} Fuzz { ${set} }` }));
    });
    await fc.assert(
      fc.asyncProperty(documents, fc.constantFrom('none', 'fuzzer') as fc.Arbitrary<'none' | 'fuzzer'>, async ({ operation, document }, who) => {
        const headers = { 'content-type': 'application/json', ...authHeader(who) };
        await sendGraphQL(JSON.stringify({ query: document }), headers, `${who}: ${document.slice(0, 400)}`, operation === 'mutation');
      }),
      { seed: SEED + 5, numRuns: 700 },
    );
  });

  it('variables of the wrong type for every operation of the contract', async () => {
    const documents: [string, boolean][] = [
      ['query($id: Int!) { post(id: $id) { id title author { name } commentCount } }', false],
      ['query($first: Int, $after: String, $authorId: Int) { posts(first: $first, after: $after, authorId: $authorId) { nodes { id } pageInfo { hasNextPage endCursor } totalCount } }', false],
      ['query($first: Int, $after: String) { users(first: $first, after: $after) { nodes { id } } }', false],
      ['query($id: Int!, $first: Int) { post(id: $id) { comments(first: $first) { id } } }', false],
      ['query($id: Int!) { comment(id: $id) { id post { id } } user(id: $id) { id posts { id } } }', false],
      ['mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', true],
      ['mutation($id: Int!, $input: UpdatePostInput!) { updatePost(id: $id, input: $input) { id } }', true],
      ['mutation($input: CreateCommentInput!) { createComment(input: $input) { id } }', true],
      ['mutation($id: Int!, $input: UpdateCommentInput!) { updateComment(id: $id, input: $input) { id } }', true],
      ['mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', true],
      ['mutation($input: CreateTokenInput!) { createToken(input: $input) { tokenType } }', true],
      ['mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }', true],
      ['mutation($id: Int!) { deletePost(id: $id) }', true],
      ['mutation($id: Int!) { deleteComment(id: $id) }', true],
      ['mutation($id: Int!) { deleteUser(id: $id) }', true],
    ];
    const idValue = fc.oneof(anyValue, fc.constantFrom(post, comment, fuzzer.id, 2 ** 31, -1, '1', 1.5));
    const variables = fc.record(
      { id: idValue, input: fc.oneof(fieldsObject, anyValue), first: anyValue, after: anyValue, authorId: anyValue, extra: anyValue },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...documents), variables, fc.constantFrom('none', 'fuzzer') as fc.Arbitrary<'none' | 'fuzzer'>, async ([document, mutation], vars, who) => {
        const headers = { 'content-type': 'application/json', ...authHeader(who) };
        const payload = JSON.stringify({ query: document, variables: vars });
        await sendGraphQL(payload, headers, `${who}: ${payload.slice(0, 400)}`, mutation);
      }),
      { seed: SEED + 6, numRuns: 500 },
    );
  });

  it('hostile documents: fragment cycles, a 1 MB document, 10,000 aliases, deep nesting, huge literals', async () => {
    const aliases = `{ ${Array.from({ length: 10_000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const documents = [
      'fragment A on Post { ...B } fragment B on Post { ...A } { post(id: 1) { ...A } }',
      'fragment A on Post { ...A } { post(id: 1) { ...A } }',
      'fragment A on Post { author { posts { ...A } } } { post(id: 1) { ...A } }',
      'query A { ...F } fragment F on Query { ...G } fragment G on Query { ...F }',
      `{ post(id: 1) { title } } ${'#'.repeat(1024 * 1024)}`,
      `{ post(id: 1) { title(x: "${'x'.repeat(1024 * 1024)}") } }`,
      aliases,
      `${'{ post(id: 1) { author { posts '.repeat(2000)}{ id }${' } }'.repeat(2000)} }`,
      `{ post(id: ${'['.repeat(5000)}1${']'.repeat(5000)}) { id } }`,
      `{ post(id: ${'9'.repeat(10_000)}) { id } }`,
      `{ posts(first: 2147483647) { nodes { comments(first: 2147483647) { id } } } }`,
      `{ posts(first: -2147483648) { nodes { id } } }`,
      'query { post(id: 1) { id } } query { post(id: 2) { id } }',
      'query A { post(id: 1) { id } } query A { post(id: 2) { id } }',
      '{ post(id: 1) @skip(if: true) @include(if: $x) { id } }',
      '{ post(id: 1) @nope { id } }',
      `{ ${'__typename '.repeat(6000)} }`,
      '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }',
      'mutation { a: deletePost(id: 1) b: deletePost(id: 1) c: deleteUser(id: 1) }',
      '{ post(id: 1) { id } } # \u0000',
      '\ufeff{ __typename }',
      '{ "string" }',
    ];
    for (const document of documents) {
      for (const who of ['none', 'fuzzer'] as const) {
        const headers = { 'content-type': 'application/json', ...authHeader(who) };
        await sendGraphQL(JSON.stringify({ query: document }), headers, `${who}: ${document.slice(0, 200)}`, false);
      }
    }
    // The same over GET, where queries are allowed.
    for (const document of documents.slice(0, 4)) {
      const response = await send({ method: 'GET', url: `/graphql?query=${encodeURIComponent(document)}`, headers: { 'apollo-require-preflight': 'true' } });
      total += 1;
      expectGraphQLAnswer(response, `GET /graphql ${document}`);
    }
  });

  it('sent a few thousand cases in all, and the service still answers', async () => {
    expect(total).toBeGreaterThan(3000);
    const health = await send({ method: 'GET', url: '/health' });
    expect(health.status).toBe(200);
    const listed = await send({ method: 'GET', url: '/posts?limit=100' });
    expect(listed.status).toBe(200);
    // Every row still reads back through the API.
    const counts = (await snapshotData(app)).counts;
    expect(counts.users).toBeGreaterThanOrEqual(4);
  });
});
