import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { type OpenApiDocument, type OperationObject, OpenApiValidator } from './support/openapi-validator.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The stand-in for Schemathesis' default checks (Schemathesis is a Python tool and PyPI is out of
 * reach here), over every operation of /docs-json, anonymously and as an admin. For each
 * operation, seeded examples are generated from its declared schemas — parameters (path, query,
 * header) and JSON body — valid ones and ones made invalid in exactly one place (checked invalid
 * by Ajv against the same schema), and each answer is checked as Schemathesis does:
 *
 * - not_a_server_error: no 5xx;
 * - status_code_conformance: the status is declared;
 * - content_type_conformance: the media type is declared (and a body is there where one is);
 * - response_headers_conformance: declared required headers are sent, contract headers declared;
 * - response_schema_conformance: the body validates against the declared schema;
 * - positive_data_acceptance: valid input is not refused with a 4xx other than 401, 403, 404,
 *   409, 410 and 412 (a credential, a state: something no schema can state);
 * - negative_data_rejection: invalid input is not accepted with a 2xx.
 *
 * Strings are printable ASCII (header values must be); path ids are drawn from the schema and
 * from ids that exist, so that successes are reached too. Cross-field rules the document writes
 * in descriptions (a scheduled post needs a future publishAt) are kept, as a client reading them
 * would (keepToDescriptions). The document is the same on every database: SQLite only.
 * OPENAPI_CHECKS_OUT=<path prefix> writes each run's findings, the operations reached and the
 * invalid examples sent to <prefix>.anonymous.json and <prefix>.admin.json.
 */
const SEED = 20261202;
const VALID_PER_OPERATION = 8;
const INVALID_PER_OPERATION = 8;

type Json = Record<string, unknown>;
type Kind =
  | 'not_a_server_error'
  | 'status_code_conformance'
  | 'content_type_conformance'
  | 'response_headers_conformance'
  | 'response_schema_conformance'
  | 'positive_data_acceptance'
  | 'negative_data_rejection';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
}

interface Example {
  path: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: unknown;
  accept?: string;
  /** Where the example was made invalid; undefined for a valid one. */
  invalid?: string;
  /** A multipart/form-data upload (POST /media): the form's file is a real image (no schema can make one). */
  form?: boolean;
}

/** A 1×1 PNG, the file of every upload the checks send. */
const TINY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

/** Media types a client may ask for (text/xml: the older name of XML, which the service serves too). */
const ACCEPTS = ['application/json', 'application/hal+json', 'application/xml', 'text/xml', 'text/html', '*/*'];
/** A refusal no schema can rule out: a credential, a permission, a state. */
const STATEFUL_REFUSALS = new Set([401, 403, 404, 409, 410, 412]);
const DAY_MS = 86_400_000;

const futureDateTime = fc.integer({ min: Date.now() + DAY_MS, max: Date.UTC(2100, 0, 1) }).map((at) => new Date(at).toISOString());
const word = fc.stringMatching(/^[a-z0-9]{1,12}$/);

/**
 * The schema's own rules aside, what descriptions state about valid input (a client reading the
 * document keeps to them): GET /posts: sort=relevance needs q, a cursor belongs to the list
 * that issued it, and slug is given alone (limit aside); posts: "scheduled" needs publishAt in the future, publishAt is for "scheduled"
 * only, at most 10 different tags, an authorId is a user's, and a revision restored alone and
 * one the post has; a reply's parent is a comment of the same post; GET /audit: resourceId comes
 * with resourceType.
 */
function keepToDescriptions(method: string, template: string, example: Example, known: { revisions: number[]; users: number[] }): void {
  if ((method === 'get' || method === 'head') && template === '/posts') {
    const query = new Map(example.query);
    if (query.get('sort') === 'relevance' && !query.has('q')) example.query = example.query.filter(([name]) => name !== 'sort');
    const names = new Set(example.query.map(([name]) => name));
    if (['tag', 'q', 'publishedAfter', 'publishedBefore', 'sort'].some((name) => names.has(name))) example.query = example.query.filter(([name]) => name !== 'cursor');
    if (names.has('slug')) example.query = example.query.filter(([name]) => name === 'slug' || name === 'limit');
  }
  // GET /audit: resourceId comes with resourceType (ids are per type).
  if ((method === 'get' || method === 'head') && template === '/audit' && example.query.some(([name]) => name === 'resourceId') && !example.query.some(([name]) => name === 'resourceType')) {
    example.query = example.query.filter(([name]) => name !== 'resourceId');
  }
  // GET /feed: its cursors are GET /posts' (the plain list's, or with tags a filtered list's `czE6…`).
  if ((method === 'get' || method === 'head') && template === '/feed') {
    const query = new Map(example.query);
    if (query.has('tag') || query.get('cursor')?.startsWith('czE6')) example.query = example.query.filter(([name]) => name !== 'cursor');
  }
  const body = example.body as Json | undefined;
  if ((template === '/posts' || template === '/posts/{id}') && body && typeof body === 'object' && !Array.isArray(body)) {
    if (body.status === 'scheduled' && typeof body.publishAt !== 'string') body.publishAt = new Date(Date.now() + 10 * DAY_MS).toISOString();
    if (body.status !== 'scheduled' && typeof body.publishAt === 'string') delete body.publishAt;
    if (Array.isArray(body.tags)) body.tags = body.tags.slice(0, 10);
    if (body.authorId !== undefined && !known.users.includes(body.authorId as number)) body.authorId = known.users[0];
    // "The id of a media item you may see": none is known to exist here.
    if (body.coverImageId !== undefined) body.coverImageId = null;
    if (body.revision !== undefined) {
      if (known.revisions.includes(body.revision as number)) {
        delete body.title;
        delete body.body;
      } else {
        delete body.revision;
      }
    }
  }
  if (template === '/posts/{id}/comments' && body && typeof body === 'object') delete body.parentId;
}

describe('the Schemathesis stand-in: every operation, valid and invalid input, anonymous and admin [sqlite]', () => {
  let app: TestApp;
  let document: OpenApiDocument;
  let validator: OpenApiValidator;
  let admin: string;
  /** The author an admin names (the one user the run cannot delete: the last admin). */
  let adminId: number;
  /** Existing ids by the path parameter they fill, per path prefix. */
  const known: Record<string, (string | number)[]> = {};

  const resolve = (schema: unknown): Json => validator.resolve(schema as Json);

  /** Values valid per a schema. */
  function valid(raw: unknown, depth = 0): fc.Arbitrary<unknown> {
    const schema = resolve(raw);
    const nullable = schema.nullable === true;
    const base = validNotNull(schema, depth);
    return nullable ? fc.oneof(base, fc.constant(null)) : base;
  }

  function validNotNull(schema: Json, depth: number): fc.Arbitrary<unknown> {
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]).filter((value) => value !== null));
    for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(schema[key])) return fc.oneof(...(schema[key] as unknown[]).map((each) => valid(each, depth + 1)));
    if (Array.isArray(schema.allOf)) return valid((schema.allOf as unknown[])[0], depth + 1);
    switch (schema.type) {
      case 'object': {
        const properties = (schema.properties ?? {}) as Record<string, unknown>;
        const required = (schema.required ?? []) as string[];
        const keys = Object.keys(properties).filter((key) => !(resolve(properties[key]).readOnly === true));
        const minProperties = (schema.minProperties as number | undefined) ?? 0;
        return fc
          .record(Object.fromEntries(keys.map((key) => [key, valid(properties[key], depth + 1)])), { requiredKeys: keys.filter((key) => required.includes(key)) })
          .filter((value) => Object.keys(value).length >= minProperties);
      }
      case 'array': {
        const minLength = (schema.minItems as number | undefined) ?? 0;
        const maxLength = Math.min((schema.maxItems as number | undefined) ?? minLength + 3, minLength + 3);
        const items = valid(schema.items ?? {}, depth + 1);
        return schema.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (value) => JSON.stringify(value) }) : fc.array(items, { minLength, maxLength });
      }
      case 'integer': {
        const min = (schema.minimum as number | undefined) ?? Number.MIN_SAFE_INTEGER;
        const max = (schema.maximum as number | undefined) ?? Number.MAX_SAFE_INTEGER;
        return fc.integer({ min, max });
      }
      case 'number':
        return fc.double({ min: (schema.minimum as number | undefined) ?? -1e9, max: (schema.maximum as number | undefined) ?? 1e9, noNaN: true });
      case 'boolean':
        return fc.boolean();
      case 'string':
        return validString(schema);
      default:
        return fc.oneof(fc.string(), fc.integer(), fc.boolean());
    }
  }

  function validString(schema: Json): fc.Arbitrary<string> {
    const minLength = (schema.minLength as number | undefined) ?? 0;
    const maxLength = (schema.maxLength as number | undefined) ?? Infinity;
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
    let base: fc.Arbitrary<string>;
    if (schema.format === 'date-time') base = futureDateTime;
    else if (schema.format === 'uri') base = word.map((path) => `http://127.0.0.1:9/${path}`);
    else if (schema.format === 'email') base = word.map((name) => `${name}@example.com`);
    else if (pattern) base = fc.stringMatching(pattern);
    else base = fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 24) });
    return base.filter((value) => value.length >= minLength && value.length <= maxLength && (pattern === undefined || pattern.test(value)));
  }

  /** Candidates that break a schema in one place (the caller keeps those Ajv finds invalid). */
  function invalid(raw: unknown): fc.Arbitrary<unknown> {
    const schema = resolve(raw);
    const candidates: fc.Arbitrary<unknown>[] = [];
    if (schema.nullable !== true && schema.type !== undefined) candidates.push(fc.constant(null));
    if (Array.isArray(schema.enum)) candidates.push(fc.constant('not-one-of-them'));
    switch (schema.type) {
      case 'object': {
        candidates.push(fc.constant('a string'), fc.constant([]));
        const properties = (schema.properties ?? {}) as Record<string, unknown>;
        const required = (schema.required ?? []) as string[];
        const keys = Object.keys(properties);
        if (schema.additionalProperties === false) candidates.push(validNotNull(schema, 0).map((value) => ({ ...(value as Json), undeclaredMember: 1 })));
        if (required.length > 0) {
          candidates.push(fc.tuple(validNotNull(schema, 0), fc.constantFrom(...required)).map(([value, key]) => Object.fromEntries(Object.entries(value as Json).filter(([name]) => name !== key))));
        }
        if (keys.length > 0) {
          candidates.push(
            fc.constantFrom(...keys).chain((key) => fc.tuple(validNotNull(schema, 0), fc.constant(key), invalid(properties[key])).map(([value, name, bad]) => ({ ...(value as Json), [name]: bad }))),
          );
        }
        if (typeof schema.minProperties === 'number' || keys.every((key) => !required.includes(key))) candidates.push(fc.constant({}));
        break;
      }
      case 'array': {
        candidates.push(fc.constant({}), fc.constant('a string'));
        const items = schema.items ?? {};
        if (typeof schema.minItems === 'number' && schema.minItems > 0) candidates.push(fc.constant([]));
        if (typeof schema.maxItems === 'number') candidates.push(fc.array(valid(items), { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
        candidates.push(invalid(items).map((bad) => [bad]));
        break;
      }
      case 'integer':
        candidates.push(fc.constant('12abc'), fc.constant(1.5), fc.constant(true));
        if (typeof schema.minimum === 'number') candidates.push(fc.constant(schema.minimum - 1));
        else candidates.push(fc.constant(-1), fc.constant(0));
        if (typeof schema.maximum === 'number') candidates.push(fc.constant(schema.maximum + 1));
        break;
      case 'number':
        candidates.push(fc.constant('x'));
        break;
      case 'boolean':
        candidates.push(fc.constant('yes'), fc.constant(1));
        break;
      case 'string':
        candidates.push(fc.constant(12), fc.constant(false));
        if (typeof schema.minLength === 'number' && schema.minLength > 0) candidates.push(fc.constant(''));
        if (typeof schema.maxLength === 'number' && schema.maxLength <= 10_000) candidates.push(fc.constant('x'.repeat(schema.maxLength + 1)));
        if (typeof schema.pattern === 'string' || typeof schema.format === 'string') candidates.push(fc.constantFrom('', ' ', 'not valid!', '---', '2030-13-45T99:00:00Z'));
        break;
    }
    return candidates.length > 0 ? fc.oneof(...candidates) : fc.constant(undefined);
  }

  /** A parameter's value as the text of a path, query or header. */
  const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

  /** A parameter's text as its schema reads it (a query's "12" is the integer 12), for Ajv. */
  function asParsed(schema: Json, text: string): unknown {
    const resolved = resolve(schema);
    if ((resolved.type === 'integer' || resolved.type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    if (resolved.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  }

  const isHeaderText = (text: string) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(text);

  function knownValues(template: string, name: string): (string | number)[] {
    const prefix = template.split('/{')[0];
    return known[`${prefix}:${name}`] ?? known[`${template}:${name}`] ?? [];
  }

  function examples(method: string, template: string, operation: OperationObject): Example[] {
    const parameters = ((operation.parameters ?? []) as Parameter[]).filter((parameter) => parameter.in !== 'cookie' && parameter.schema);
    const media = operation.requestBody?.content['application/json'];
    const bodySchema = media?.schema;
    const bodyRequired = (operation.requestBody as { required?: boolean } | undefined)?.required === true;
    const offered = Object.entries(operation.responses)
      .filter(([status]) => status.startsWith('2'))
      .flatMap(([, response]) => Object.keys(validator.resolve(response).content ?? {}));
    // A route of the feed types alone (GET /feed) is asked for those; every other, for the resource types.
    const accepts = offered.some((type) => ACCEPTS.includes(type)) ? ACCEPTS : [...offered, '*/*'];
    const accept = offered.length > 1 ? fc.option(fc.constantFrom(...accepts), { nil: undefined }) : fc.constant(undefined);

    const parameterValue = (parameter: Parameter) => {
      const fromSchema = valid(parameter.schema).map(asText);
      const existing = parameter.in === 'path' ? knownValues(template, parameter.name).map(String) : [];
      const value = existing.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...existing), weight: 3 }, { arbitrary: fromSchema, weight: 1 }) : fromSchema;
      return parameter.in === 'header' ? value.filter(isHeaderText) : value;
    };
    const validExample = fc
      .record({
        values: fc.record(
          Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.in === 'path' || parameter.required ? parameterValue(parameter) : fc.option(parameterValue(parameter), { nil: undefined })])),
        ),
        body: bodySchema ? (bodyRequired ? valid(bodySchema) : fc.option(valid(bodySchema), { nil: undefined })) : fc.constant(undefined),
        accept,
      })
      .map(({ values, body, accept }) => build(parameters, values, body, accept));

    const validOnes = fc.sample(validExample, { seed: SEED, numRuns: VALID_PER_OPERATION });
    if (!media && operation.requestBody?.content['multipart/form-data']) for (const example of validOnes) example.form = true;
    // And the least a body may be: its required members only (each operation's first example otherwise).
    if (bodySchema && validOnes.length > 0) {
      const target = resolve(bodySchema);
      if (target.type === 'object') {
        const properties = (target.properties ?? {}) as Record<string, unknown>;
        const required = ((target.required ?? []) as string[]).filter((key) => key in properties);
        const [least] = fc.sample(fc.record(Object.fromEntries(required.map((key) => [key, valid(properties[key])]))), { seed: SEED, numRuns: 1 });
        if (validator.schemaErrors(bodySchema, least).length === 0) validOnes.push({ ...validOnes[0], body: least });
      }
    }
    for (const example of validOnes) keepToDescriptions(method, template, example, { revisions: knownValues('/posts/{id}/revisions/{number}', 'number').map(Number), users: [adminId] });

    // One place made invalid: a parameter's value, or the body.
    const targets: { label: string; arbitrary: fc.Arbitrary<unknown>; check: (value: unknown) => boolean; parameter?: Parameter }[] = [];
    for (const parameter of parameters) {
      const arbitrary = invalid(parameter.schema).filter((value) => value !== undefined && value !== null);
      targets.push({
        label: `${parameter.in}.${parameter.name}`,
        parameter,
        arbitrary,
        check: (value) => {
          const text = asText(value);
          if (parameter.in === 'header' && !isHeaderText(text)) return false;
          if (parameter.in === 'path' && text === '') return false;
          return validator.schemaErrors(parameter.schema!, asParsed(parameter.schema!, text)).length > 0;
        },
      });
    }
    if (bodySchema) targets.push({ label: 'body', arbitrary: invalid(bodySchema).filter((value) => value !== undefined), check: (value) => validator.schemaErrors(bodySchema, value).length > 0 });
    const invalidOnes: Example[] = [];
    if (targets.length > 0) {
      const invalidExample = fc.tuple(validExample, fc.integer({ min: 0, max: targets.length - 1 })).chain(([base, index]) =>
        targets[index].arbitrary.map((bad) => ({ base, target: targets[index], bad })),
      );
      for (const { base, target, bad } of fc.sample(invalidExample, { seed: SEED + 1, numRuns: INVALID_PER_OPERATION * 4 })) {
        if (invalidOnes.length >= INVALID_PER_OPERATION || !target.check(bad)) continue;
        const example: Example = { ...base, path: { ...base.path }, query: [...base.query], headers: { ...base.headers }, invalid: target.label };
        if (!target.parameter) example.body = bad;
        else if (target.parameter.in === 'path') example.path[target.parameter.name] = asText(bad);
        else if (target.parameter.in === 'header') example.headers[target.parameter.name] = asText(bad);
        else example.query = [...example.query.filter(([name]) => name !== target.parameter!.name), [target.parameter.name, asText(bad)]];
        invalidOnes.push(example);
      }
    }
    return [...validOnes, ...invalidOnes];
  }

  function build(parameters: Parameter[], values: Record<string, unknown>, body: unknown, accept: string | undefined): Example {
    const example: Example = { path: {}, query: [], headers: {}, body, accept };
    for (const parameter of parameters) {
      const value = values[parameter.name];
      if (value === undefined) continue;
      if (parameter.in === 'path') example.path[parameter.name] = value as string;
      else if (parameter.in === 'header') example.headers[parameter.name] = value as string;
      else if (resolve(parameter.schema).type === 'array') for (const each of JSON.parse(value as string) as unknown[]) example.query.push([parameter.name, asText(each)]);
      else example.query.push([parameter.name, value as string]);
    }
    return example;
  }

  async function send(method: string, template: string, example: Example, token: string | undefined): Promise<{ url: string; response: request.Response }> {
    let url = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(example.path[name] ?? ''));
    const query = new URLSearchParams(example.query);
    if (query.size > 0) url += `?${query.toString()}`;
    let pending = (request(app.server) as unknown as Record<string, (url: string) => request.Test>)[method](url);
    if (token) pending = pending.set(bearer(token));
    if (example.accept) pending = pending.set('Accept', example.accept);
    for (const [name, value] of Object.entries(example.headers)) pending = pending.set(name, value);
    if (example.body !== undefined) pending = pending.set('Content-Type', 'application/json').send(JSON.stringify(example.body));
    else if (example.form) pending = pending.attach('file', TINY_PNG, 'tiny.png');
    return { url, response: await pending };
  }

  function kindOf(message: string): Kind {
    if (/status not declared/.test(message)) return 'status_code_conformance';
    if (/header/.test(message)) return 'response_headers_conformance';
    if (/schema|not JSON/.test(message)) return 'response_schema_conformance';
    return 'content_type_conformance';
  }

  interface Run {
    /** The mismatches, by check. */
    found: Record<string, string[]>;
    /** `post /posts`: the operations that answered a valid example with a 2xx. */
    reached: Set<string>;
    /** How many invalid examples were sent (and refused). */
    invalidSent: number;
  }

  /** Every operation's examples, sent as `token` (anonymous when undefined). */
  async function run(token: string | undefined): Promise<Run> {
    const found: Record<string, string[]> = {};
    const reached = new Set<string>();
    let invalidSent = 0;
    const note = (kind: Kind, message: string) => (found[kind] ??= []).push(message);
    // DELETEs last, so that what they remove was there for the others.
    const ordered = Object.entries(document.paths).flatMap(([template, item]) => Object.entries(item).map(([method, operation]) => ({ template, method, operation })));
    ordered.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));
    for (const { template, method, operation } of ordered) {
      for (const example of examples(method, template, operation)) {
        const { url, response } = await send(method, template, example, token);
        const label = `${method.toUpperCase()} ${url}${example.body === undefined ? '' : ` ${JSON.stringify(example.body).slice(0, 120)}`}${example.accept ? ` (Accept: ${example.accept})` : ''} → ${response.status}`;
        if (response.status >= 500) note('not_a_server_error', `${label}: ${(response.text ?? '').slice(0, 200)}`);
        const { status } = response;
        if (example.invalid) invalidSent += 1;
        else if (status >= 200 && status < 300) reached.add(`${method} ${template}`);
        if (!example.invalid && status >= 400 && status < 500 && !STATEFUL_REFUSALS.has(status)) note('positive_data_acceptance', `${label}: ${(response.text ?? '').slice(0, 200)}`);
        if (example.invalid && status >= 200 && status < 300) note('negative_data_rejection', `${label}: ${example.invalid} was invalid`);
        for (const message of validator.check(method, url, response, { anonymous: token === undefined })) {
          if (/security requires/.test(message)) continue;
          note(kindOf(message), `${message}${example.accept ? ` (Accept: ${example.accept})` : ''}`);
        }
      }
    }
    return { found, reached, invalidSent };
  }

  const operations = () => Object.entries(document.paths).flatMap(([template, item]) => Object.keys(item).map((method) => `${method} ${template}`));

  const counts = (found: Record<string, string[]>) => Object.fromEntries(Object.entries(found).map(([kind, messages]) => [kind, messages.length]));

  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    document = (await request(app.server).get('/docs-json').expect(200)).body as OpenApiDocument;
    validator = new OpenApiValidator(document);
    admin = await tokenFor(app, ADMIN);
    const alice = await tokenFor(app, ALICE);
    await tokenFor(app, BOB);
    const users = (await request(app.server).get('/users?limit=100').expect(200)).body as { id: number; email: string }[];
    // Not the admin's id: DELETE /users/{id}/tokens would sign the admin out.
    known['/users:id'] = users.filter((user) => user.email !== ADMIN.email).map((user) => user.id);
    const post = (await request(app.server).post('/posts').set(bearer(alice)).send({ title: 'Checked', body: 'b', tags: ['checked'] }).expect(201)).body as { id: number };
    const comment = (await request(app.server).post(`/posts/${post.id}/comments`).set(bearer(alice)).send({ body: 'c' }).expect(201)).body as { id: number };
    await request(app.server).patch(`/posts/${post.id}`).set(bearer(alice)).send({ title: 'Checked again' }).expect(200);
    const posts = (await request(app.server).get('/posts?limit=5').expect(200)).body as { id: number }[];
    known['/posts:id'] = [post.id, ...posts.map((each) => each.id)];
    known['/posts/{id}/revisions/{number}:number'] = [1];
    known['/comments:id'] = [comment.id];
    known['/tags:id'] = ((await request(app.server).get('/tags?limit=5').expect(200)).body as { id: number }[]).map((tag) => tag.id);
    const webhook = (await request(app.server).post('/webhooks').set(bearer(admin)).send({ url: 'http://127.0.0.1:9/hook', types: ['POST_CREATED'] }).expect(201)).body as { id: number };
    known['/webhooks:id'] = [webhook.id];
    adminId = users.find((user) => user.email === ADMIN.email)!.id;
    const aliceId = users.find((user) => user.email === ALICE.email)!.id;
    const key = (await request(app.server).post(`/users/${aliceId}/api-keys`).set(bearer(alice)).send({ name: 'checked', scopes: ['read'] }).expect(201)).body as { id: number };
    known['/users/{id}/api-keys/{keyId}:keyId'] = [key.id];
    known['/events:cursor'] = ((await request(app.server).get('/events?limit=5').expect(200)).body as { cursor: string }[]).map((event) => event.cursor);
  });
  afterAll(() => app?.close());

  it('anonymously: no mismatch of any check', async () => {
    // First, that the checks see what they look for: invalid values are made, mismatches are told apart.
    const operation = document.paths['/posts/{id}'].get;
    const invalidIds = fc.sample(invalid((operation.parameters as Parameter[]).find((parameter) => parameter.name === 'id')!.schema), { seed: SEED, numRuns: 20 });
    expect(invalidIds.filter((value) => validator.schemaErrors({ type: 'integer', minimum: 1 }, asParsed({ type: 'integer' }, asText(value))).length > 0).length).toBeGreaterThan(0);
    const post = validator.resolve<Json>({ $ref: '#/components/schemas/Post' });
    expect(validator.schemaErrors(post, { id: 1 }).length).toBeGreaterThan(0);
    expect(kindOf('GET /x → 418: status not declared')).toBe('status_code_conformance');
    expect(kindOf('GET /x → 200: media type text/xml not declared')).toBe('content_type_conformance');
    expect(kindOf('GET /x → 200: body does not match the schema: …')).toBe('response_schema_conformance');
    expect(kindOf('GET /x → 200: required header etag missing')).toBe('response_headers_conformance');
    const { found, reached, invalidSent } = await run(undefined);
    if (process.env.OPENAPI_CHECKS_OUT) (await import('node:fs')).writeFileSync(`${process.env.OPENAPI_CHECKS_OUT}.anonymous.json`, JSON.stringify({ found, reached: [...reached], unreached: operations().filter((operation) => !reached.has(operation)), invalidSent }, null, 1));
    expect({ counts: counts(found), found }).toEqual({ counts: {}, found: {} });
    // What anyone may read was read, and invalid input was sent.
    const reads = ['/posts', '/posts/{id}', '/posts/{id}/comments', '/users', '/users/{id}', '/tags', '/tags/{id}', '/comments/{id}', '/events', '/events/{cursor}', '/health', '/metrics'];
    expect(reads.flatMap((path) => [`get ${path}`, `head ${path}`]).filter((operation) => !reached.has(operation))).toEqual([]);
    expect(invalidSent).toBeGreaterThan(operations().length * 3);
  });

  it('as an admin: no mismatch of any check', async () => {
    const { found, reached, invalidSent } = await run(admin);
    if (process.env.OPENAPI_CHECKS_OUT) (await import('node:fs')).writeFileSync(`${process.env.OPENAPI_CHECKS_OUT}.admin.json`, JSON.stringify({ found, reached: [...reached], unreached: operations().filter((operation) => !reached.has(operation)), invalidSent }, null, 1));
    expect({ counts: counts(found), found }).toEqual({ counts: {}, found: {} });
    expect(reached.size, [...reached].join(', ')).toBeGreaterThan(operations().length * 0.75);
    expect(invalidSent).toBeGreaterThan(operations().length * 3);
  });

  it('what sampling may miss, stated in the document: bounded integer inputs, always-present fields required, optional headers', () => {
    // Every integer a client may send has its bounds (the service refuses ids past 2^31-1, and below 1).
    const unbounded: string[] = [];
    const seen = new Set<string>();
    const walk = (value: unknown, where: string): void => {
      if (Array.isArray(value)) return value.forEach((each, index) => walk(each, `${where}[${index}]`));
      if (typeof value !== 'object' || value === null) return;
      const schema = value as Json;
      if (typeof schema.$ref === 'string') {
        if (!seen.has(schema.$ref)) {
          seen.add(schema.$ref);
          walk(resolve(schema), schema.$ref);
        }
        return;
      }
      if (schema.type === 'integer' && (typeof schema.minimum !== 'number' || typeof schema.maximum !== 'number')) unbounded.push(where);
      for (const [key, child] of Object.entries(schema)) walk(child, `${where}.${key}`);
    };
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        seen.clear();
        walk(operation.parameters, `${method} ${template} parameters`);
        walk(operation.requestBody, `${method} ${template} body`);
      }
    }
    expect(unbounded).toEqual([]);
    // Fields every read carries are required (the event log's snapshots may lack the computed ones).
    expect(resolve({ $ref: '#/components/schemas/Post' }).required).toEqual(expect.arrayContaining(['tags', 'publishAt', '_links']));
    expect(resolve({ $ref: '#/components/schemas/Tag' }).required).toEqual(expect.arrayContaining(['postCount', '_links']));
    expect(resolve({ $ref: '#/components/schemas/PostSnapshot' }).required).not.toContain('tags');
    // No header parameter is required: every operation answers without one.
    const required = Object.entries(document.paths).flatMap(([template, item]) =>
      Object.entries(item).flatMap(([method, operation]) => ((operation.parameters ?? []) as Parameter[]).filter((parameter) => parameter.in === 'header' && parameter.required).map((parameter) => `${method} ${template} ${parameter.name}`)),
    );
    expect(required).toEqual([]);
  });
});
