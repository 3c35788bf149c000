import type { HeaderObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';

export type { ReferenceObject, SchemaObject };

/**
 * Named schemas and headers of the OpenAPI document: the decorators refer to them by `$ref`, and
 * the document's post-processor copies the ones it refers to into `components`.
 */
const schemas = new Map<string, SchemaObject>();

export function schemaRef(name: string, schema: SchemaObject): ReferenceObject {
  schemas.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

export function namedSchemas(): Record<string, SchemaObject> {
  return Object.fromEntries(schemas);
}

/** The response headers the service sends, by name. */
export const RESPONSE_HEADERS = {
  Location: { description: 'The path of the created resource', schema: { type: 'string', example: '/posts/42' } },
  ETag: { description: 'The version of this representation; send it as If-None-Match or If-Match', schema: { type: 'string', example: '"3"' } },
  Link: {
    description: 'The next page, when more items exist: `<path>; rel="next"`',
    schema: { type: 'string', example: '</posts?limit=20&cursor=djE6NDI>; rel="next"' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0, example: 5 } },
  'RateLimit-Policy': {
    description:
      'The limits that counted this request (draft-ietf-httpapi-ratelimit-headers, a structured-field list): `q` per `w` seconds; GraphQL answers add the "cost" budget. Absent when the limits are off',
    schema: { type: 'string', example: '"requests";q=1000;w=60' },
  },
  RateLimit: {
    description: 'What is left of each limit of RateLimit-Policy (`r`) and the seconds until its window starts over (`t`); r=0 on a 429',
    schema: { type: 'string', example: '"requests";r=998;t=42' },
  },
  'WWW-Authenticate': { description: 'The scheme to authenticate with', schema: { type: 'string', example: 'Bearer' } },
  Allow: { description: 'The methods this path serves', schema: { type: 'string', example: 'GET, HEAD, PATCH, DELETE' } },
  Vary: { description: 'The representation depends on Accept', schema: { type: 'string', example: 'Accept' } },
  'Last-Modified': {
    description: 'When what the document shows last changed (a feed: its newest entry); send it as If-Modified-Since',
    schema: { type: 'string', example: 'Thu, 03 Dec 2026 06:00:00 GMT' },
  },
} as const satisfies Record<string, HeaderObject>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** A header of a response, `required` when every response of that status carries it. */
export function headerRef(name: ResponseHeaderName, required = true): HeaderObject | ReferenceObject {
  return required ? { $ref: `#/components/headers/${name}` } : { ...RESPONSE_HEADERS[name], required: false };
}

/** JSON schemas of what is not a resource (a resource's schema derives from its entity: ResourceDefinition.schema). */
export const TOKEN_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    accessToken: { type: 'string' },
    tokenType: { type: 'string', enum: ['Bearer'] },
    expiresIn: { type: 'integer', example: 3600 },
  },
  required: ['accessToken', 'tokenType', 'expiresIn'],
  additionalProperties: false,
};

// No examples here: this schema serves every status, and each response has its own example.
const PROBLEM_PROPERTIES: Record<string, SchemaObject> = {
  type: { type: 'string', description: 'The kind of problem: `/problems/<code in kebab case>`' },
  title: { type: 'string', description: 'The status\'s reason phrase' },
  status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status' },
  detail: { type: 'string', description: 'What went wrong, for a person' },
  instance: { type: 'string', description: 'The path asked for' },
  code: { type: 'string', description: 'The error code, as GraphQL\'s `extensions.code`' },
  errors: {
    type: 'array',
    items: {
      type: 'object',
      properties: { field: { type: 'string' }, message: { type: 'string' } },
      required: ['field', 'message'],
      additionalProperties: false,
    },
  },
};

/** RFC 9457 problem details, as every error of the service. */
export const PROBLEM_SCHEMA: SchemaObject = {
  type: 'object',
  properties: PROBLEM_PROPERTIES,
  required: ['type', 'title', 'status', 'detail', 'instance', 'code'],
  additionalProperties: false,
};

const CHECK_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['up', 'down'] } },
  required: ['status'],
  additionalProperties: true,
};

export const HEALTH_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    checks: { type: 'object', additionalProperties: CHECK_SCHEMA },
    uptimeSeconds: { type: 'integer', minimum: 0 },
  },
  required: ['status', 'checks', 'uptimeSeconds'],
  additionalProperties: false,
};

/** The problem of a 503 from /health, naming the state of each dependency. */
export const HEALTH_PROBLEM_SCHEMA: SchemaObject = {
  ...PROBLEM_SCHEMA,
  properties: { ...PROBLEM_PROPERTIES, checks: { type: 'object', additionalProperties: CHECK_SCHEMA } },
  required: [...(PROBLEM_SCHEMA.required ?? []), 'checks'],
};
