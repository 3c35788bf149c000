import { XMLParser, XMLValidator } from 'fast-xml-parser';
import request from 'supertest';
import { beforeAll, expect, it } from 'vitest';
import { type OpenApiDocument, OpenApiValidator, type ResponseObject } from './support/openapi-validator.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * The examples of /docs-json, checked as an OpenAPI example validator (Redocly's
 * no-invalid-media-type-examples, Spectral's oas3-valid-media-example) checks them, and more: every
 * error response has an example; each is valid against its own schema (ajv, the document's own
 * components); each is the problem of its own status (a 401's is UNAUTHENTICATED, a 409's CONFLICT,
 * never the 404 of another), for the path it is declared on; and problem+xml's is the same problem
 * in RFC 9457 Appendix A form. Nor does the shared Problem schema carry property examples of one
 * status, from which a tool would build the same example for all of them.
 */
const CODES: Record<number, string> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  410: 'CURSOR_EXPIRED',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_SERVER_ERROR',
  503: 'SERVICE_UNAVAILABLE',
};
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: false, isArray: (name) => name === 'i' });

type Problem = Record<string, unknown> & { status: number; code: string; type: string; instance: string; detail: string };

/** An XML element's content as JSON would have it (`<i>` lists as arrays, attributes dropped). */
function fromXml(node: unknown): unknown {
  if (typeof node !== 'object' || node === null) return node;
  const entries = Object.entries(node).filter(([key]) => !key.startsWith('@_'));
  if (entries.length === 1 && entries[0][0] === 'i') return (entries[0][1] as unknown[]).map(fromXml);
  return Object.fromEntries(entries.map(([key, value]) => [key, fromXml(value)]));
}

/** The XML problem's members as problem+json has them (`status` a number). */
function problemFromXml(problem: Record<string, unknown>): unknown {
  const members = fromXml(problem) as Record<string, unknown>;
  return { ...members, status: Number(members.status) };
}

describeEachDatabase('OpenAPI examples: each status has its own problem', (kind) => {
  const app = useApp(kind, { signIn: [] });
  let validator: OpenApiValidator;
  let document: OpenApiDocument;

  beforeAll(async () => {
    document = (await request(app.server).get('/docs-json').expect(200)).body as OpenApiDocument;
    validator = new OpenApiValidator(document);
  });

  it('every error response of every operation has an example that is valid against its schema and is that status\'s problem', () => {
    const problems: string[] = [];
    const seen = new Map<number, Set<string>>();
    let checked = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      const instance = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const served = METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
      for (const method of METHODS.filter((name) => item[name])) {
        for (const [status, declared] of Object.entries(item[method].responses)) {
          const label = `${method.toUpperCase()} ${path} ${status}`;
          const response = validator.resolve<ResponseObject>(declared);
          if (Number(status) < 400 || !response.content) continue;
          const json = response.content['application/problem+json'];
          if (!json) {
            problems.push(`${label}: no application/problem+json`);
            continue;
          }
          const example = json.example as Problem | undefined;
          if (example === undefined) {
            problems.push(`${label}: no example`);
            continue;
          }
          checked += 1;
          problems.push(...validator.schemaErrors(json.schema!, example).map((error) => `${label}: example does not match its schema: ${error}`));
          if (example.status !== Number(status)) problems.push(`${label}: the example is a ${example.status} problem`);
          if (example.code !== CODES[Number(status)]) problems.push(`${label}: the example's code is ${example.code}, not ${CODES[Number(status)]}`);
          if (example.type !== `/problems/${String(example.code).toLowerCase().replaceAll('_', '-')}`) problems.push(`${label}: the example's type is ${example.type}`);
          if (!instance.test(example.instance)) problems.push(`${label}: the example's instance ${example.instance} is not this path`);
          if (Number(status) === 405) {
            // The methods the example names are the path's (HEAD beside GET), compared as sets.
            const named = example.detail.split('it serves ')[1]?.split(', ').sort() ?? [];
            const allowed = [...new Set([...served, ...(served.includes('GET') ? ['HEAD'] : [])])].sort();
            if (named.join() !== allowed.join()) problems.push(`${label}: the example names ${named.join()}, the path serves ${allowed.join()}`);
          }
          if (!seen.has(Number(status))) seen.set(Number(status), new Set());
          seen.get(Number(status))!.add(example.code);

          const xmlExample = response.content['application/problem+xml']?.example;
          if (typeof xmlExample !== 'string') {
            problems.push(`${label}: no application/problem+xml example`);
            continue;
          }
          const wellFormed = XMLValidator.validate(xmlExample);
          if (wellFormed !== true) {
            problems.push(`${label}: the XML example is not well-formed: ${JSON.stringify(wellFormed)}`);
            continue;
          }
          const parsed = xml.parse(xmlExample) as { problem?: Record<string, unknown> };
          if (parsed.problem?.['@_xmlns'] !== 'urn:ietf:rfc:7807') problems.push(`${label}: the XML example is not a problem in urn:ietf:rfc:7807`);
          else if (JSON.stringify(problemFromXml(parsed.problem)) !== JSON.stringify(example)) problems.push(`${label}: the XML example is not the JSON one`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
    // Each status has its own code, whichever operation declares it.
    for (const [status, codes] of seen) expect([...codes], String(status)).toEqual([CODES[status]]);
    expect([...seen.keys()].sort()).toEqual(expect.arrayContaining([400, 401, 403, 404, 405, 406, 409, 410, 412, 413, 415, 429, 503]));
  });

  it('a 400 example lists the field it is about; the shared Problem schema has no property examples of one status', () => {
    const post = validator.resolve<ResponseObject>(document.paths['/posts/{id}'].get.responses['400']).content!['application/problem+json'].example as Problem;
    expect(post.errors).toEqual([{ field: 'id', message: 'must be a positive integer' }]);
    const tokens = validator.resolve<ResponseObject>(document.paths['/tokens'].post.responses['400']).content!['application/problem+json'].example as Problem;
    expect((tokens.errors as { field: string }[])[0].field).toMatch(/^(email|password)$/);
    const schema = validator.resolve<{ properties: Record<string, { example?: unknown }> }>({ $ref: '#/components/schemas/Problem' });
    for (const [name, property] of Object.entries(schema.properties)) expect(property.example, name).toBeUndefined();
  });
});
