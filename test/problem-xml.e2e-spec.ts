import { XMLParser, XMLValidator } from 'fast-xml-parser';
import request, { type Test } from 'supertest';
import { expect, it } from 'vitest';
import { ALICE, bearer } from './support/auth.js';
import { expectNoLeaks } from './support/problems.js';
import { createPost } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Errors for XML clients: a client that asks for XML (and prefers it to JSON) gets every error as
 * application/problem+xml per RFC 9457 Appendix A — `<problem xmlns="urn:ietf:rfc:7807">`, each
 * member a child element, an array's values as `<i>` — read here with a real XML parser
 * (fast-xml-parser: well-formedness checked, entities decoded) and compared member by member with
 * the problem+json the same request gets.
 */
const NAMESPACE = 'urn:ietf:rfc:7807';
const BODY_LIMIT = 4096;
const RATE_LIMIT_MAX = 3;

const parser = new XMLParser({ ignoreAttributes: false, parseTagValue: false, trimValues: false, isArray: (name) => name === 'i' });

interface XmlProblem {
  '@_xmlns': string;
  type: string;
  title: string;
  status: string;
  detail: string;
  instance: string;
  code: string;
  errors?: { i: { field: string; message: string }[] };
}

/** The XML problem of a response: its media type, well-formedness, root, namespace and members. */
function parseProblem(response: request.Response, status: number): XmlProblem {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
  expect(response.headers.vary).toMatch(/\bAccept\b/);
  expect(XMLValidator.validate(response.text), response.text).toBe(true);
  expect(response.text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?><problem xmlns="urn:ietf:rfc:7807">/);
  const document = parser.parse(response.text) as { problem?: XmlProblem };
  expect(Object.keys(document).filter((key) => key !== '?xml')).toEqual(['problem']);
  const problem = document.problem!;
  expect(problem['@_xmlns']).toBe(NAMESPACE);
  expectNoLeaks(response.text);
  return problem;
}

/** The XML problem as the JSON one would be: members with their types, `<i>` lists as arrays. */
function asJson(problem: XmlProblem): Record<string, unknown> {
  const { '@_xmlns': _namespace, status, errors, ...members } = problem;
  return { ...members, status: Number(status), ...(errors ? { errors: errors.i } : {}) };
}

describeEachDatabase('errors as application/problem+xml (RFC 9457 Appendix A)', (kind) => {
  const app = useApp(kind, { env: { TRUST_PROXY: 'true', RATE_LIMIT_MAX: String(RATE_LIMIT_MAX), BODY_LIMIT_BYTES: String(BODY_LIMIT) }, signIn: ['alice', 'bob'] });
  let addresses = 0;

  /** Each call from its own address, so the rate limit is reached only where a test means to. */
  const fresh = (pending: Test) => pending.set('X-Forwarded-For', `10.7.${(addresses >> 8) & 255}.${(addresses += 1) & 255}`);
  const http = () => request(app.server);

  it('every kind of error, for Accept: application/xml, is the problem+json document as XML', async () => {
    const post = await createPost(app, app.tokens.alice, { title: 'Kept' });
    const etag = (await fresh(http().get(`/posts/${post.id}`)).expect(200)).headers.etag as string;
    await fresh(http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', etag)).send({ body: 'changed' }).expect(200);
    const cases: [string, number, string, () => Test][] = [
      ['unknown post', 404, 'NOT_FOUND', () => http().get('/posts/999999')],
      ['unknown path', 404, 'NOT_FOUND', () => http().get('/nope')],
      ['bad id', 400, 'BAD_USER_INPUT', () => http().get('/posts/abc')],
      ['bad cursor', 400, 'BAD_USER_INPUT', () => http().get('/posts?cursor=nope')],
      ['validation errors', 400, 'BAD_USER_INPUT', () => http().post('/posts').set(bearer(app.tokens.alice)).send({ title: '', extra: 1 })],
      ['no credential', 401, 'UNAUTHENTICATED', () => http().post('/posts').send({ title: 't', body: 'b' })],
      ['a broken credential', 401, 'UNAUTHENTICATED', () => http().get('/posts').set(bearer('nope'))],
      ['not yours', 403, 'FORBIDDEN', () => http().patch(`/posts/${post.id}`).set(bearer(app.tokens.bob)).send({ title: 'Mine' })],
      ['method', 405, 'METHOD_NOT_ALLOWED', () => http().put(`/posts/${post.id}`).send({})],
      ['duplicate e-mail', 409, 'CONFLICT', () => http().post('/users').send({ name: 'Alice again', email: ALICE.email, password: 'another-password' })],
      ['stale If-Match', 412, 'PRECONDITION_FAILED', () => http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).set('If-Match', etag).send({ title: 'Lost' })],
      ['too large', 413, 'PAYLOAD_TOO_LARGE', () => http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 't', body: 'x'.repeat(BODY_LIMIT) })],
      ['not JSON', 415, 'UNSUPPORTED_MEDIA_TYPE', () => http().post('/posts').set(bearer(app.tokens.alice)).set('Content-Type', 'text/plain').send('hello')],
    ];
    for (const accept of ['application/xml', 'text/xml', 'application/xml, application/json;q=0.5']) {
      for (const [label, status, code, build] of cases) {
        const xml = await fresh(build().set('Accept', accept));
        const problem = parseProblem(xml, status);
        const json = await fresh(build());
        expect(json.headers['content-type'], label).toBe('application/problem+json; charset=utf-8');
        expect(problem.code, label).toBe(code);
        expect(asJson(problem), `${label} (${accept})`).toEqual(JSON.parse(json.text));
        for (const header of ['allow', 'www-authenticate']) expect(xml.headers[header], `${label}: ${header}`).toBe(json.headers[header]);
      }
    }
    // Nothing the refused writes carried was stored.
    expect((await fresh(http().get(`/posts/${post.id}`)).expect(200)).body).toMatchObject({ title: 'Kept', body: 'changed' });
  });

  it('a validation problem lists its errors as <i> elements; user text is escaped and reads back as sent', async () => {
    const field = 'a&b<c>"d\'&amp;';
    const response = await fresh(http().post('/posts').set(bearer(app.tokens.alice)).set('Accept', 'application/xml').send({ title: 'T', body: 'B', [field]: 1 }));
    const problem = parseProblem(response, 400);
    expect(response.text).toContain('<errors><i><field>');
    expect(problem.errors!.i).toEqual([{ field, message: expect.stringContaining(field) }]);
    const unknownPath = await fresh(http().get('/x&amp;y').set('Accept', 'application/xml'));
    expect(parseProblem(unknownPath, 404).instance).toBe('/x&amp;y');
  });

  it('406: problem+xml for a client that accepts problem+xml, JSON for one that accepts neither; a browser still gets HTML', async () => {
    for (const accept of ['application/problem+xml', 'application/problem+xml, image/png;q=0.5']) {
      const problem = parseProblem(await fresh(http().get('/posts/1').set('Accept', accept)), 406);
      expect(problem.code).toBe('NOT_ACCEPTABLE');
      expect(problem.detail).toContain('application/xml');
    }
    for (const accept of ['image/png', 'application/problem+json', 'application/pdf, application/problem+json;q=0.1']) {
      const response = await fresh(http().get('/posts/1').set('Accept', accept));
      expect(response.status).toBe(406);
      expect(response.headers['content-type'], accept).toBe('application/problem+json; charset=utf-8');
    }
    const browser = await fresh(http().get('/posts/999999').set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'));
    expect(browser.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const accept of ['*/*', 'application/json, application/xml', 'application/*', 'application/xml;q=0.5, application/json']) {
      const response = await fresh(http().get('/posts/999999').set('Accept', accept));
      expect(response.headers['content-type'], accept).toBe('application/problem+json; charset=utf-8');
    }
  });

  it('429 with Retry-After, as XML; HEAD has the same status and headers and no body', async () => {
    const address = '10.7.255.1';
    const limited = () => http().get('/posts').set('X-Forwarded-For', address).set('Accept', 'application/xml');
    for (let index = 0; index < RATE_LIMIT_MAX; index += 1) await limited().expect(200);
    const response = await limited();
    const problem = parseProblem(response, 429);
    expect(problem.code).toBe('RATE_LIMITED');
    expect(response.headers['retry-after']).toMatch(/^\d+$/);
    const head = await fresh(http().head('/posts/999999').set('Accept', 'application/xml'));
    expect(head.status).toBe(404);
    expect(head.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
    expect(head.text ?? '').toBe('');
  });
});
