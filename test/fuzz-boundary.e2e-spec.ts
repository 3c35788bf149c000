import { GraphQLSchemaHost } from '@nestjs/graphql';
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
} from 'graphql';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN, ALICE, tokenFor } from './support/auth.js';
import { expectGraphQLAnswer, expectNoServerError, injector, type InjectRequest, type InjectResponse } from './support/inject.js';
import { snapshotData } from './support/snapshot.js';
import { rawStream } from './support/sse.js';
import { listen, sleep } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Issue 36: every parameter of the OpenAPI document (path, query, header, and the bearer
 * credential its security names) and every GraphQL argument and input field of the schema,
 * given each hostile text: NUL, other C0 controls and DEL, lone surrogates (either half, and a
 * reversed pair), and overlong values; date-times also get years no database holds. Walked exhaustively (deterministic), then a seeded
 * fast-check run mixes them into otherwise valid text. Never a 5xx nor an internal GraphQL
 * error; a value no door takes is refused (4xx, or a GraphQL error with a code).
 */

const HOSTILE: [string, string][] = [
  ['NUL', '\u0000'],
  ['NUL inside', 'a\u0000b'],
  ['U+0001', '\u0001'],
  ['U+001F', 'x\u001f'],
  ['DEL', '\u007f'],
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', 'x\udfff'],
  ['reversed pair', '\udc00\ud800'],
  ['10,001 characters', 'y'.repeat(10_001)],
  ['100,001 characters', 'z'.repeat(100_001)],
];
/** For date-times besides: years no database holds as sent (JS Dates reach ±275760), and year 0. */
const HOSTILE_DATES: [string, string][] = [
  ['year -271821', '-271821-04-20T00:00:00Z'],
  ['year +275760', '+275760-09-13T00:00:00Z'],
  ['year 0', '0000-01-01T00:00:00Z'],
];

/** Values that some field may take as they are (a post's body holds 10,001 characters). */
const MAY_BE_TAKEN = new Set(['10,001 characters']);

/** Percent-encoding as a client's bytes would be: a lone surrogate as the three bytes WTF-8 gives it (not UTF-8). */
function percentEncode(text: string): string {
  let out = '';
  for (const part of text.match(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g) ?? []) {
    const unit = part.charCodeAt(0);
    if (part.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(part);
    }
  }
  return out;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema?: { format?: string };
}
interface Operation {
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
}

/** A value for a path parameter not under test: well-formed, and naming nothing (so nothing is changed). */
const fillerFor = (name: string) => (name === 'cursor' ? 'bm90aGluZw' : '999999');

describeEachDatabase('fuzz: hostile text at every parameter and argument', (kind) => {
  let app: TestApp;
  let send: (request: InjectRequest) => Promise<InjectResponse>;
  let alice: string;
  let admin: string;
  let schema: GraphQLSchema;
  let paths: Record<string, Record<string, Operation>>;
  let sent = 0;
  let base: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    send = injector(app);
    alice = await tokenFor(app, ALICE);
    admin = await tokenFor(app, ADMIN);
    schema = app.app.get(GraphQLSchemaHost).schema;
    paths = (await request(app.server).get('/docs-json').expect(200)).body.paths;
    base = (await listen(app)).http;
  });
  afterAll(async () => {
    if (app) expect((await request(app.server).get('/health')).status).toBe(200);
    await app?.close();
  });

  // ---------------------------------------------------------------------------------------
  // REST: the OpenAPI document's parameters

  /** Every (method, path, parameter) of the document; the bearer credential as a header of the secured ones. HEAD is GET's. */
  function restParameters(): { method: InjectRequest['method']; path: string; parameter: Parameter; parameters: Parameter[] }[] {
    const found: { method: InjectRequest['method']; path: string; parameter: Parameter; parameters: Parameter[] }[] = [];
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) continue;
        const parameters: Parameter[] = [...(operation.parameters ?? []).filter((p) => ['path', 'query', 'header'].includes(p.in))];
        if (operation.security?.length) parameters.push({ name: 'authorization', in: 'header' });
        for (const parameter of parameters) found.push({ method: method.toUpperCase() as InjectRequest['method'], path, parameter, parameters });
      }
    }
    return found;
  }

  function restRequest(method: InjectRequest['method'], path: string, parameters: Parameter[], target: Parameter, value: string, encoded = percentEncode(value)): InjectRequest {
    let url = path;
    for (const parameter of parameters.filter((p) => p.in === 'path')) {
      url = url.replace(`{${parameter.name}}`, parameter === target ? encoded : fillerFor(parameter.name));
    }
    if (target.in === 'query') url += `?${encodeURIComponent(target.name)}=${encoded}`;
    const headers: Record<string, string> = { authorization: `Bearer ${alice}` };
    if (target.in === 'header') headers[target.name.toLowerCase()] = value;
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') headers['content-type'] = 'application/json';
    return { method, url, headers, payload: method === 'POST' || method === 'PATCH' || method === 'PUT' ? '{}' : undefined };
  }

  it('the OpenAPI document declares the parameters walked here', () => {
    const names = new Set(restParameters().map(({ parameter }) => `${parameter.in}:${parameter.name}`));
    for (const name of ['query:q', 'query:slug', 'query:cursor', 'query:tag', 'query:publishedAfter', 'path:id', 'path:cursor', 'header:If-Match', 'header:If-None-Match', 'header:authorization']) {
      expect(names, name).toContain(name);
    }
  });

  it('REST: each hostile text in each path, query and header parameter of every operation → 4xx problem+json, nothing written', async () => {
    const before = await snapshotData(app);
    const accepted: string[] = [];
    for (const { method, path, parameter, parameters } of restParameters()) {
      for (const [label, value] of parameter.schema?.format === 'date-time' ? [...HOSTILE, ...HOSTILE_DATES] : HOSTILE) {
        const req = restRequest(method, path, parameters, parameter, value);
        const what = `${method} ${path} ${parameter.in} ${parameter.name} = ${label}`;
        const response = await send(req);
        sent += 1;
        expectNoServerError(response, what);
        if (response.status < 400 && !(MAY_BE_TAKEN.has(label) && parameter.in === 'header')) accepted.push(`${what}: ${response.status}`);
      }
    }
    expect(accepted, 'hostile text taken').toEqual([]);
    expect(await snapshotData(app), 'a refused request changed data').toEqual(before);
  });

  // ---------------------------------------------------------------------------------------
  // GraphQL: every argument and input field

  /** A GraphQL type as a variable declares it. */
  const typeName = (type: GraphQLInputType): string => String(type);

  /** A valid value for an input type (what fills the arguments not under test): the smallest that passes. */
  function validValue(type: GraphQLInputType, name: string, depth = 0): unknown {
    if (isNonNullType(type)) return validValue(type.ofType, name, depth);
    if (isListType(type)) return [validValue(type.ofType as GraphQLInputType, name, depth)];
    if (isEnumType(type)) return type.getValues()[0].name;
    if (isInputObjectType(type)) {
      const value: Record<string, unknown> = {};
      if (depth > 3) return value;
      for (const field of Object.values(type.getFields())) {
        if (isNonNullType(field.type) && field.defaultValue === undefined) value[field.name] = validValue(field.type, field.name, depth + 1);
      }
      return value;
    }
    switch (type.name) {
      case 'Int':
        return 1;
      case 'Float':
        return 1.5;
      case 'Boolean':
        return true;
      case 'DateTime':
        return '2030-01-01T00:00:00.000Z';
      default:
        return /email/i.test(name) ? 'fuzz@example.com' : /url/i.test(name) ? 'https://example.com/x' : 'text';
    }
  }

  /** A JS value as a GraphQL literal of `type` (enums bare, strings escaped as JSON escapes them). */
  function literal(value: unknown, type: GraphQLInputType): string {
    if (isNonNullType(type)) return literal(value, type.ofType);
    if (value === null) return 'null';
    if (isListType(type)) return `[${(value as unknown[]).map((item) => literal(item, type.ofType as GraphQLInputType)).join(', ')}]`;
    if (isEnumType(type)) return String(value);
    if (isInputObjectType(type)) {
      const fields = type.getFields();
      return `{ ${Object.entries(value as Record<string, unknown>).map(([key, item]) => `${key}: ${literal(item, fields[key].type)}`).join(', ')} }`;
    }
    return JSON.stringify(value);
  }

  /** Where text can go in an argument: [path of keys into its value, list or not], down through input objects. */
  function textSlots(type: GraphQLInputType, depth = 0): (string | number)[][] {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) return textSlots(inner.ofType as GraphQLInputType, depth).map((path) => [0, ...path]);
    if (isInputObjectType(inner)) {
      if (depth > 3) return [];
      return Object.values(inner.getFields()).flatMap((field) => textSlots(field.type, depth + 1).map((path) => [field.name, ...path]));
    }
    if (isScalarType(inner) && !['Int', 'Float', 'Boolean'].includes(inner.name)) return [[]];
    return [];
  }

  /** The value of an argument with `text` at `slot`, everything else valid. */
  function withText(type: GraphQLInputType, name: string, slot: (string | number)[], text: string): unknown {
    if (slot.length === 0) return text;
    const inner = isNonNullType(type) ? type.ofType : type;
    const [key, ...rest] = slot;
    if (isListType(inner)) return [withText(inner.ofType as GraphQLInputType, name, rest, text)];
    const fields = (inner as Extract<GraphQLInputType, { getFields: unknown }>).getFields() as Record<string, { type: GraphQLInputType }>;
    const value = { ...(validValue(inner, name) as Record<string, unknown>) };
    value[key as string] = withText(fields[key as string].type, String(key), rest, text);
    return value;
  }

  const selectionOf = (type: GraphQLNamedType) => (isLeafType(type) ? '' : ' { __typename }');

  interface Reach {
    operation: 'query' | 'mutation' | 'subscription';
    /** The document around a selection on this type: `post(id: 1) { %s }`. */
    wrap: (inner: string) => string;
  }

  /** How each object type is reached from Query (breadth first, required arguments filled with ids that exist). */
  function reaches(): Map<string, Reach> {
    const query = schema.getQueryType()!;
    const found = new Map<string, Reach>([[query.name, { operation: 'query', wrap: (inner) => inner }]]);
    const queue = [query.name];
    while (queue.length > 0) {
      const name = queue.shift()!;
      const reach = found.get(name)!;
      const type = schema.getType(name);
      if (!isObjectType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        const named = getNamedType(field.type);
        const targets = isUnionType(named) ? named.getTypes() : isInterfaceType(named) ? schema.getPossibleTypes(named) : isObjectType(named) ? [named] : [];
        for (const target of targets) {
          if (found.has(target.name)) continue;
          const args = field.args.filter((arg) => isNonNullType(arg.type)).map((arg) => `${arg.name}: ${literal(validValue(arg.type, arg.name), arg.type)}`);
          const call = `${field.name}${args.length ? `(${args.join(', ')})` : ''}`;
          const wrap = target === named ? (inner: string) => reach.wrap(`${call} { ${inner} }`) : (inner: string) => reach.wrap(`${call} { ... on ${target.name} { ${inner} } }`);
          found.set(target.name, { operation: 'query', wrap });
          queue.push(target.name);
        }
      }
    }
    return found;
  }

  interface Slot {
    owner: string;
    field: GraphQLField<unknown, unknown>;
    arg: GraphQLArgument;
    slot: (string | number)[];
    reach: Reach;
  }

  function argumentSlots(): Slot[] {
    const slots: Slot[] = [];
    const reached = reaches();
    const rootReach = (operation: Reach['operation']): Reach => ({ operation, wrap: (inner) => inner });
    const owners: [GraphQLNamedType | null | undefined, Reach][] = [
      [schema.getMutationType(), rootReach('mutation')],
      [schema.getSubscriptionType(), rootReach('subscription')],
      ...[...reached.entries()].map(([name, reach]) => [schema.getType(name), reach] as [GraphQLNamedType | undefined, Reach]),
    ];
    for (const [owner, reach] of owners) {
      if (!isObjectType(owner)) continue;
      for (const field of Object.values(owner.getFields())) {
        for (const arg of field.args) for (const slot of textSlots(arg.type)) slots.push({ owner: owner.name, field, arg, slot, reach });
      }
    }
    return slots;
  }

  /** Whether the slot is an input field of type DateTime (publishAt, expiresAt). */
  function isDateTimeField({ arg, slot }: Slot): boolean {
    let type: GraphQLInputType = arg.type;
    for (const key of slot) {
      const inner = getNamedType(type);
      if (typeof key === 'number' || !isInputObjectType(inner)) continue;
      type = inner.getFields()[key].type;
    }
    return getNamedType(type).name === 'DateTime';
  }

  function graphqlDocument({ field, arg, slot, reach }: Slot, text: string, asVariable: boolean): { query: string; variables?: Record<string, unknown> } {
    const args = field.args
      .filter((other) => other === arg || isNonNullType(other.type))
      .map((other) => {
        if (other !== arg) return `${other.name}: ${literal(validValue(other.type, other.name), other.type)}`;
        return `${other.name}: ${asVariable ? '$v' : literal(withText(arg.type, arg.name, slot, text), arg.type)}`;
      });
    const selection = `${field.name}(${args.join(', ')})${selectionOf(getNamedType(field.type))}`;
    const header = asVariable ? `${reach.operation}($v: ${typeName(arg.type)})` : reach.operation;
    return { query: `${header} { ${reach.wrap(selection)} }`, variables: asVariable ? { v: withText(arg.type, arg.name, slot, text) } : undefined };
  }

  async function sendGraphQL(body: { query: string; variables?: Record<string, unknown> }, token: string, what: string) {
    const response = await send({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, payload: JSON.stringify(body) });
    sent += 1;
    return expectGraphQLAnswer(response, what);
  }

  it('the schema has the arguments walked here', () => {
    const names = new Set(argumentSlots().map(({ owner, field, arg, slot }) => [`${owner}.${field.name}(${arg.name})`, ...slot].join('.')));
    for (const name of ['Query.posts(search)', 'Query.tag(slug)', 'Query.posts(tag).0', 'Query.posts(after)', 'Mutation.createPost(input).title', 'Mutation.updatePost(input).tags.0', 'Query.posts(publishedAfter)']) {
      expect(names, name).toContain(name);
    }
  });

  it('GraphQL: each hostile text in each argument and input field (as a variable and as a literal) → an error with a code, never an internal one', async () => {
    const accepted: string[] = [];
    for (const slot of argumentSlots()) {
      for (const [label, value] of getNamedType(slot.arg.type).name === 'DateTime' || isDateTimeField(slot) ? [...HOSTILE, ...HOSTILE_DATES] : HOSTILE) {
        for (const asVariable of [true, false]) {
          const document = graphqlDocument(slot, value, asVariable);
          const what = `${slot.owner}.${slot.field.name}(${[slot.arg.name, ...slot.slot].join('.')}) = ${label} as ${asVariable ? 'a variable' : 'a literal'}: ${document.query.slice(0, 200)}`;
          if (slot.reach.operation === 'subscription') continue;
          const answer = await sendGraphQL(document, slot.reach.operation === 'mutation' ? admin : alice, what);
          if (!MAY_BE_TAKEN.has(label) && !(answer.errors?.length ?? 0)) accepted.push(what);
        }
      }
    }
    expect(accepted, 'hostile text taken').toEqual([]);
  });

  it('GraphQL subscriptions over SSE: each hostile text in each argument → refused (400, or an error event), never a live stream', async () => {
    const accepted: string[] = [];
    for (const slot of argumentSlots().filter(({ reach }) => reach.operation === 'subscription')) {
      for (const [label, value] of HOSTILE) {
        for (const asVariable of [true, false]) {
          const document = graphqlDocument(slot, value, asVariable);
          const what = `SSE ${slot.field.name}(${[slot.arg.name, ...slot.slot].join('.')}) = ${label} as ${asVariable ? 'a variable' : 'a literal'}`;
          const stream = await rawStream(base, document, { authorization: `Bearer ${alice}` });
          sent += 1;
          expect(stream.response.status, `${what}: ${stream.text?.slice(0, 300)}`).toBeLessThan(500);
          if (stream.text !== undefined) {
            const body = JSON.parse(stream.text) as { errors?: { extensions?: { code?: string } }[] };
            expect(body.errors?.length, what).toBeGreaterThan(0);
            for (const error of body.errors ?? []) expect(error.extensions?.code, what).not.toBe('INTERNAL_SERVER_ERROR');
          } else {
            // An event stream: its first event must be the refusal, and then it ends.
            await Promise.race([stream.ended, sleep(2000)]);
            const refusal = stream.events.find((event) => event.event === 'next' && event.data?.errors?.length);
            if (!refusal && !MAY_BE_TAKEN.has(label)) accepted.push(what);
            for (const error of refusal?.data.errors ?? []) expect(error.extensions?.code, what).not.toBe('INTERNAL_SERVER_ERROR');
          }
          stream.close();
        }
      }
    }
    expect(accepted, 'hostile text taken').toEqual([]);
  });

  // ---------------------------------------------------------------------------------------
  // Seeded: hostile characters inside otherwise valid text, at random parameters and arguments

  it('seeded: hostile characters mixed into valid text at random parameters and arguments — never a 5xx', async () => {
    const rest = restParameters();
    const slots = argumentSlots();
    const hostileChar = fc.constantFrom('\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u000e', '\u001b', '\u001f', '\u007f', '\ud800', '\udbff', '\udc00', '\udfff');
    const mixed = fc
      .tuple(fc.string({ maxLength: 8 }), hostileChar, fc.string({ maxLength: 8 }), fc.integer({ min: 0, max: 3 }))
      .map(([before, bad, after, repeat]) => `${before}${bad.repeat(repeat + 1)}${after}`);
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), mixed, fc.boolean(), async (restIndex, slotIndex, text, asVariable) => {
        const { method, path, parameter, parameters } = rest[restIndex % rest.length];
        const response = await send(restRequest(method, path, parameters, parameter, text));
        sent += 1;
        const what = `${method} ${path} ${parameter.in} ${parameter.name} = ${JSON.stringify(text)}`;
        expectNoServerError(response, what);
        expect(response.status, what).toBeGreaterThanOrEqual(400);
        const slot = slots[slotIndex % slots.length];
        const answer = await sendGraphQL(graphqlDocument(slot, text, asVariable), slot.reach.operation === 'mutation' ? admin : alice, `${slot.field.name}(${slot.arg.name}) = ${JSON.stringify(text)}`);
        expect(answer.errors?.length ?? 0, `${slot.owner}.${slot.field.name}(${slot.arg.name}) took ${JSON.stringify(text)}`).toBeGreaterThan(0);
      }),
      { seed: 36_2026, numRuns: 300 },
    );
  });

  it(`sent every case (${kind})`, () => {
    expect(sent).toBeGreaterThan(1000);
  });
});
