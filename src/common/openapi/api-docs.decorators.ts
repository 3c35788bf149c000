import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiHeader, ApiQuery, ApiResponse, type HeaderObject, type ReferenceObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../errors/error-code.js';
import { LIST_CURSOR_PATTERN } from '../pagination/cursor.js';
import { headerRef, PROBLEM_SCHEMA, schemaRef, type SchemaObject } from './schemas.js';

/**
 * Composite decorators, one per kind of route. Each declares what the route itself answers on
 * success and the errors of its own rules; what every route may answer (400, 401, 429, 503, …)
 * is added to every operation by `completeDocument`, which also derives security from @SignedIn.
 */

/** What the OpenAPI document needs of a resource (a ResourceDefinition). */
export interface DocumentedResource {
  readonly kind: string;
  readonly plural: string;
  readonly schema: SchemaObject;
  /** The query parameter its lists are paged by (`cursor` unless it says otherwise). */
  readonly cursorParameter?: string;
  /** The pattern of that cursor (a list cursor's unless it says otherwise). */
  readonly cursorPattern?: string;
  /** Its schema in HAL, where HAL adds links its JSON does not carry (an event's `self`). */
  readonly halSchema?: SchemaObject;
}

type Schema = SchemaObject | ReferenceObject;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const PROBLEM_XML_MEDIA_TYPE = 'application/problem+xml';
const STRING: SchemaObject = { type: 'string' };
const LINK: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };

const capitalized = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

function resourceRef(resource: DocumentedResource): ReferenceObject {
  return schemaRef(capitalized(resource.kind), resource.schema);
}

function halRef(resource: DocumentedResource): ReferenceObject {
  return resource.halSchema ? schemaRef(`${capitalized(resource.kind)}Hal`, resource.halSchema) : resourceRef(resource);
}

/** The HAL collection of a list: `_links` (self, next) and the items under `_embedded.<plural>`. */
function collectionRef(resource: DocumentedResource): ReferenceObject {
  return schemaRef(`${capitalized(resource.kind)}Collection`, {
    type: 'object',
    properties: {
      _links: {
        type: 'object',
        properties: { self: LINK, next: LINK },
        required: ['self'],
        additionalProperties: false,
      },
      _embedded: {
        type: 'object',
        properties: { [resource.plural]: { type: 'array', items: halRef(resource) } },
        required: [resource.plural],
        additionalProperties: false,
      },
    },
    required: ['_links', '_embedded'],
    additionalProperties: false,
  });
}

/** The formats a negotiated route answers in, chosen by Accept (writes answer them too). */
function representations(json: Schema, hal: Schema) {
  return {
    'application/json': { schema: json },
    'application/hal+json': { schema: hal },
    'application/xml': { schema: STRING },
    // The same XML under its older name, for a client that asks for it (RFC 7303).
    'text/xml': { schema: STRING },
    'text/html': { schema: STRING },
  };
}

const problemRef = () => schemaRef('Problem', PROBLEM_SCHEMA);

const atLeastOneMember = new Set<string>();

/** A request body class of which at least one member must be given (`{}` is 400): `minProperties: 1` in its schema. */
export const ApiAtLeastOneMember = (): ClassDecorator => (target) => {
  atLeastOneMember.add(target.name);
};

/** Whether the request body schema of this name (its class's) needs a member. */
export const needsAMember = (schemaName: string) => atLeastOneMember.has(schemaName);

/** problem+json responses for the given statuses (their headers are added by completeDocument). */
export const ApiProblems = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: Object.values(ERROR_CODES).find((entry) => entry.status === status)?.title ?? 'Error',
        content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef() } },
      }),
    ),
  );

/** A GET of one resource: negotiated formats, ETag and If-None-Match → 304. */
export const ApiGetOne = (resource: DocumentedResource, ...problems: number[]) => ApiGetOneWithHeaders(resource, {}, ...problems);

/** ApiGetOne whose 200 carries more headers (a post's Content-Language). */
export const ApiGetOneWithHeaders = (resource: DocumentedResource, headers: Record<string, HeaderObject>, ...problems: number[]) =>
  applyDecorators(
    ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier GET; 304 if unchanged' }),
    ApiResponse({
      status: 200,
      description: `The ${resource.kind}`,
      headers: { ETag: headerRef('ETag'), Vary: headerRef('Vary'), ...headers },
      content: representations(resourceRef(resource), halRef(resource)),
    }),
    ApiResponse({
      status: 304,
      description: 'Not modified: the If-None-Match tag is current (no body)',
      headers: { ETag: headerRef('ETag'), Vary: headerRef('Vary') },
    }),
    ApiProblems(404, ...problems),
  );

/**
 * A GET of a list: keyset paging with limit and cursor (or the resource's own cursor parameter),
 * `Link: <…>; rel="next"` when more exist.
 * JSON is an array; HAL is a collection.
 */
export const ApiGetList = (resource: DocumentedResource, ...problems: number[]) => getList(resource, false, problems);

/** A GET of a list of posts that also serves them as feeds when Accept asks (CONTRACT §13): ApiGetList's answers and the feed types. */
export const ApiGetListWithFeeds = (resource: DocumentedResource, ...problems: number[]) => getList(resource, true, problems);

/**
 * ApiGetList whose 200 is also the whole filtered list as NDJSON (Accept: application/x-ndjson),
 * one item a line, streamed (limit and cursor do not apply; no Link).
 */
export const ApiGetListWithStream = (resource: DocumentedResource, ...problems: number[]) => getList(resource, false, problems, true);

/** The NDJSON of a streamed list: text, one item (as its JSON) a line. */
const NDJSON_CONTENT = {
  'application/x-ndjson': { schema: { type: 'string', description: 'One item a line, each as its JSON representation' } satisfies SchemaObject },
};

/** The feed types (CONTRACT §13): Atom and RSS as XML text, JSON Feed 1.1 as an object. */
const FEED_CONTENT = {
  'application/atom+xml': { schema: STRING },
  'application/rss+xml': { schema: STRING },
  'application/feed+json': {
    schema: {
      type: 'object',
      description: 'JSON Feed 1.1 (https://jsonfeed.org/version/1.1)',
      properties: { version: { type: 'string' }, title: { type: 'string' }, next_url: { type: 'string' }, items: { type: 'array', items: { type: 'object' } } },
      required: ['version', 'title', 'items'],
    } satisfies SchemaObject,
  },
};

/** A rendered document's caching headers: a digest ETag, Last-Modified, and the next page's Link when there is one. */
const DOCUMENT_HEADERS = { ETag: headerRef('ETag'), 'Last-Modified': headerRef('Last-Modified', false), Link: headerRef('Link', false) };
const CONDITIONAL_HEADERS = [
  ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier GET; 304 if unchanged' }),
  ApiHeader({ name: 'If-Modified-Since', required: false, description: 'A Last-Modified from an earlier GET; 304 if nothing changed since (ignored with If-None-Match)' }),
];

/** GET /feed: the feed types alone (Atom the default), paged by limit and cursor, conditional. */
export const ApiGetFeed = (cursorPattern: string, ...problems: number[]) =>
  applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'cursor', required: false, schema: { type: 'string', pattern: cursorPattern }, description: 'From the Link rel="next" of the previous page' }),
    ...CONDITIONAL_HEADERS,
    ApiResponse({ status: 200, description: 'The feed: Atom 1.0 (the default), RSS 2.0 or JSON Feed 1.1', headers: { ...DOCUMENT_HEADERS, Vary: headerRef('Vary') }, content: FEED_CONTENT }),
    ApiResponse({ status: 304, description: 'Not modified (no body)', headers: { ...DOCUMENT_HEADERS, Vary: headerRef('Vary') } }),
    ApiProblems(...problems),
  );

/** A GET of a document of one type (sitemap, robots.txt): ETag, Last-Modified, conditional. */
export const ApiGetDocument = (contentType: string, description: string, ...problems: number[]) =>
  applyDecorators(
    ...CONDITIONAL_HEADERS,
    ApiResponse({ status: 200, description, headers: DOCUMENT_HEADERS, content: { [contentType]: { schema: STRING } } }),
    ApiResponse({ status: 304, description: 'Not modified (no body)', headers: DOCUMENT_HEADERS }),
    ApiProblems(...problems),
  );

function getList(resource: DocumentedResource, feeds: boolean, problems: number[], streams = false) {
  return applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({
      name: resource.cursorParameter ?? 'cursor',
      required: false,
      schema: { type: 'string', pattern: resource.cursorPattern ?? LIST_CURSOR_PATTERN },
      description: 'From the Link rel="next" of the previous page',
    }),
    ApiResponse({
      status: 200,
      description: feeds ? `A page of ${resource.plural}; as a feed (Accept: a feed type) with ETag and Last-Modified` : `A page of ${resource.plural}`,
      headers: feeds
        ? { Link: headerRef('Link', false), Vary: headerRef('Vary'), ETag: headerRef('ETag', false), 'Last-Modified': headerRef('Last-Modified', false) }
        : { Link: headerRef('Link', false), Vary: headerRef('Vary') },
      content: { ...representations({ type: 'array', items: resourceRef(resource) }, collectionRef(resource)), ...(feeds ? FEED_CONTENT : {}), ...(streams ? NDJSON_CONTENT : {}) },
    }),
    ...(feeds
      ? [
          ...CONDITIONAL_HEADERS,
          ApiResponse({ status: 304, description: 'A feed not modified (no body)', headers: { ...DOCUMENT_HEADERS, Vary: headerRef('Vary') } }),
        ]
      : []),
    ApiProblems(...problems),
  );
}

/** A POST that creates a resource: 201, Location naming it, its ETag. */
export const ApiCreate = (resource: DocumentedResource, ...problems: number[]) =>
  applyDecorators(
    ApiResponse({
      status: 201,
      description: `The ${resource.kind}; Location names it`,
      headers: { Location: headerRef('Location'), ETag: headerRef('ETag'), Vary: headerRef('Vary') },
      content: representations(resourceRef(resource), resourceRef(resource)),
    }),
    ApiProblems(...problems),
  );

/** A PATCH of a resource: If-Match (412 when stale), the changed resource with its new ETag. */
export const ApiUpdate = (resource: DocumentedResource, ...problems: number[]) =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: 'The ETag you last read (or *); 412 if the resource changed since; an empty If-Match is 400',
      schema: { type: 'string', pattern: '[^\\s,]' },
    }),
    ApiResponse({
      status: 200,
      description: `The changed ${resource.kind}`,
      headers: { ETag: headerRef('ETag'), Vary: headerRef('Vary') },
      content: representations(resourceRef(resource), resourceRef(resource)),
    }),
    ApiProblems(412, ...problems),
  );

/** A DELETE: 204 without a body. */
export const ApiDelete = (description: string, ...problems: number[]) =>
  applyDecorators(HttpCode(204), ApiResponse({ status: 204, description }), ApiProblems(...problems));

/** A JSON answer of a route that is not negotiated (tokens, API keys, health). */
export const ApiJson = (status: number, description: string, schema: Schema, headers?: Record<string, HeaderObject | ReferenceObject>) =>
  ApiResponse({ status, description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } });

/** A PATCH of many resources at once (all or nothing): the changed ones, as a list in every format. */
export const ApiUpdateMany = (resource: DocumentedResource, ...problems: number[]) =>
  applyDecorators(
    ApiResponse({
      status: 200,
      description: `The changed ${resource.plural}, in the order given`,
      headers: { Vary: headerRef('Vary') },
      content: representations({ type: 'array', items: resourceRef(resource) }, collectionRef(resource)),
    }),
    ApiProblems(...problems),
  );
