import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { type OpenApiDocument, OpenApiValidator } from './support/openapi-validator.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The stand-in for Schemathesis (a Python tool; PyPI is out of reach here) and its "positive data
 * acceptance" check: for each parameter the server validates, values generated from the schema
 * /docs-json states for it — integers within its bounds, strings of its pattern (fast-check's
 * stringMatching, as Schemathesis uses hypothesis' from_regex), RFC 3339 date-times — are never
 * refused with 400, never answered with a 5xx, and every answer is one the document declares.
 * A parameter whose format the document does not state (an unbounded integer, a free string the
 * server then refuses) fails this.
 */
const SEED = 20261125;
const RUNS = 30;

interface Schema {
  type?: string;
  items?: Schema;
  maxItems?: number;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: unknown[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}

const DAY_MS = 86_400_000;

/** RFC 3339 date-times from tomorrow to 2100, written the ways a generator writes them (offsets, fractions). */
function futureDateTimes(): fc.Arbitrary<string> {
  const now = Date.now();
  return fc
    .record({
      at: fc.integer({ min: now + DAY_MS, max: Date.UTC(2100, 0, 1) }),
      offsetMinutes: fc.constantFrom(0, 60, -300, 330, 840, -720),
      fraction: fc.constantFrom('', '.5', '.123', '.123456789'),
      zulu: fc.boolean(),
    })
    .map(({ at, offsetMinutes, fraction, zulu }) => {
      if (zulu || offsetMinutes === 0) return new Date(at).toISOString().replace(/\.\d{3}Z$/, `${fraction}Z`);
      const local = new Date(at + offsetMinutes * 60_000).toISOString().slice(0, 19);
      const sign = offsetMinutes < 0 ? '-' : '+';
      const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
      const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
      return `${local}${fraction}${sign}${hours}:${minutes}`;
    });
}

/** A repeatable query parameter (`type: array`, form style, exploded: `?tag=a&tag=b`): its values. */
function validLists(schema: Schema): fc.Arbitrary<string[]> {
  return fc.array(validValues(schema.items ?? {}), { maxLength: schema.maxItems ?? 3 });
}

/**
 * Rules across parameters that no schema states, written in the parameters' descriptions: the
 * generator keeps to them as a client reading the document would. GET /posts: `sort=relevance`
 * orders a search (it needs `q`), and a cursor belongs to the list that issued it, so none is
 * made up for a filtered or sorted list (nor one of theirs, `czE6…`, for the plain list); `slug`
 * is given alone (limit aside). GET /audit: resourceId comes with resourceType.
 */
const DEPENDENT: Record<string, (query: URLSearchParams) => void> = {
  '/posts': (query) => {
    if (query.get('sort') === 'relevance' && !query.has('q')) query.delete('sort');
    const filtered = ['tag', 'q', 'publishedAfter', 'publishedBefore'].some((name) => query.has(name)) || (query.get('sort') ?? '-publishedAt') !== '-publishedAt';
    if (filtered || query.get('cursor')?.startsWith('czE6')) query.delete('cursor');
    // slug finds one post: given alone (limit aside).
    if (query.has('slug')) for (const name of [...new Set(query.keys())]) if (name !== 'slug' && name !== 'limit') query.delete(name);
  },
  // GET /audit: resourceId is with resourceType (ids are per type).
  '/audit': (query) => {
    if (query.has('resourceId') && !query.has('resourceType')) query.delete('resourceId');
  },
  // GET /feed pages as GET /posts does: a tag makes it a filtered list.
  '/feed': (query) => {
    if (query.has('tag') || query.get('cursor')?.startsWith('czE6')) query.delete('cursor');
  },
};

/** Values valid per a schema, as text (a query or path parameter, or a JSON string member). */
function validValues(schema: Schema): fc.Arbitrary<string> {
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  if (schema.type === 'integer') {
    return fc.integer({ min: schema.minimum ?? Number.MIN_SAFE_INTEGER, max: schema.maximum ?? Number.MAX_SAFE_INTEGER }).map(String);
  }
  const pattern = schema.pattern === undefined ? undefined : new RegExp(schema.pattern);
  const base =
    schema.format === 'date-time'
      ? futureDateTimes()
      : pattern
        ? fc.stringMatching(pattern)
        : fc.string({ unit: 'grapheme', minLength: schema.minLength ?? 0, maxLength: schema.maxLength ?? 40 });
  return base.filter(
    (value) =>
      value.length >= (schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity) && (pattern === undefined || pattern.test(value)),
  );
}

describeEachDatabase('the Schemathesis stand-in: values valid per /docs-json are never refused', (kind) => {
  let app: TestApp;
  let document: OpenApiDocument;
  let validator: OpenApiValidator;
  let admin: string;
  let alice: string;
  let aliceId: number;

  beforeAll(async () => {
    app = await startTestApp(kind, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    document = (await request(app.server).get('/docs-json').expect(200)).body as OpenApiDocument;
    validator = new OpenApiValidator(document);
    admin = await tokenFor(app, ADMIN);
    alice = await tokenFor(app, ALICE);
    const users = (await request(app.server).get('/users?limit=100').expect(200)).body as { id: number; email: string }[];
    aliceId = users.find((user) => user.email === ALICE.email)!.id;
    // Something in every list: events, a webhook (pointing at the discard port: nothing is sent).
    await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Fuzzed', body: 'b' }).expect(201);
    await request(app.server).post('/webhooks').set(bearer(admin)).send({ url: 'http://127.0.0.1:9/hook', types: ['POST_CREATED'] }).expect(201);
  });
  afterAll(() => app?.close());

  it('every path and query parameter of every GET: values valid per its schema are never 400 nor 5xx, and every answer is declared', async () => {
    const refused: string[] = [];
    const operations = Object.entries(document.paths).filter(([, item]) => item.get);
    expect(operations.length).toBeGreaterThan(10);
    for (const [path, item] of operations) {
      const parameters = ((item.get.parameters ?? []) as Parameter[]).filter((parameter) => (parameter.in === 'path' || parameter.in === 'query') && parameter.schema);
      if (parameters.length === 0) continue;
      const values = fc.record(
        Object.fromEntries(
          parameters.map((parameter) => [
            parameter.name,
            parameter.schema!.type === 'array'
              ? validLists(parameter.schema!)
              : parameter.in === 'path' || parameter.required
                ? validValues(parameter.schema!)
                : fc.option(validValues(parameter.schema!), { nil: undefined }),
          ]),
        ) as Record<string, fc.Arbitrary<string | string[] | undefined>>,
      );
      await fc.assert(
        fc.asyncProperty(values, async (generated) => {
          let url = path;
          const query = new URLSearchParams();
          for (const parameter of parameters) {
            const value = generated[parameter.name];
            if (value === undefined) continue;
            if (Array.isArray(value)) for (const each of value) query.append(parameter.name, each);
            else if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(value));
            else query.set(parameter.name, value);
          }
          DEPENDENT[path]?.(query);
          if (query.size > 0) url += `?${query.toString()}`;
          const response = await request(app.server).get(url).set(bearer(admin));
          if (response.status === 400 || response.status >= 500) refused.push(`GET ${url} → ${response.status}: ${response.text.slice(0, 300)}`);
          const mismatches = validator.check('get', url, response, { anonymous: false });
          if (mismatches.length > 0) refused.push(...mismatches);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    }
    expect(refused).toEqual([]);
  });

  it('POST /users/{id}/api-keys: an expiresAt valid per the document (and in the future, as its description says) is taken', async () => {
    const body = document.paths['/users/{id}/api-keys'].post.requestBody!.content['application/json'].schema as { $ref: string };
    const schema = validator.resolve<{ properties: Record<string, Schema & { description?: string }> }>(body);
    const expiresAt = schema.properties.expiresAt;
    expect(expiresAt.format).toBe('date-time');
    expect(expiresAt.description).toMatch(/future/);
    const refused: string[] = [];
    await fc.assert(
      fc.asyncProperty(validValues(expiresAt), async (value) => {
        const response = await request(app.server).post(`/users/${aliceId}/api-keys`).set(bearer(alice)).send({ name: 'fuzzed', scopes: ['read'], expiresAt: value });
        if (response.status !== 201) refused.push(`expiresAt ${value} → ${response.status}: ${response.text.slice(0, 200)}`);
        else expect(new Date(response.body.expiresAt).getTime(), value).toBe(new Date(value).getTime());
        expect(validator.check('post', `/users/${aliceId}/api-keys`, response, { anonymous: false })).toEqual([]);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    expect(refused).toEqual([]);
  });

  it('If-Match: any value the document allows is a precondition (412 or a change), never 400; what it excludes (empty) is 400', async () => {
    const header = (document.paths['/posts/{id}'].patch.parameters as Parameter[]).find((parameter) => parameter.name === 'If-Match')!;
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Guarded', body: 'b' }).expect(201)).body as { id: number };
    const allowed = new RegExp(header.schema!.pattern ?? '');
    for (const empty of ['', ' ', ',', ' , ']) {
      expect(allowed.test(empty), `the document allows If-Match ${JSON.stringify(empty)}`).toBe(false);
      expect((await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).set('If-Match', empty).send({ body: 'b' })).status).toBe(400);
    }
    await fc.assert(
      fc.asyncProperty(
        validValues(header.schema!).filter((value) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)),
        async (value) => {
          const response = await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).set('If-Match', value).send({ body: 'b' });
          expect([200, 412], `If-Match ${value}: ${response.text}`).toContain(response.status);
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
