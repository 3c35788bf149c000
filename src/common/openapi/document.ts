import type { OpenAPIObject, OperationObject, ParameterObject, PathItemObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import type { FieldError } from '../errors/domain-error.js';
import { codeForStatus, ERROR_CODES, type ErrorCode } from '../errors/error-code.js';
import { type ProblemDetails, toProblemDetails } from '../errors/problem-details.js';
import { renderProblemXml } from '../errors/problem-xml.js';
import { AVAILABLE_MEDIA_TYPES } from '../resource/media-types.js';
import { needsAMember, PROBLEM_MEDIA_TYPE, PROBLEM_XML_MEDIA_TYPE } from './api-docs.decorators.js';
import { headerRef, namedSchemas, PROBLEM_SCHEMA, RESPONSE_HEADERS, type ResponseHeaderName, schemaRef } from './schemas.js';
import { MAX_INT32 } from '../validation/limits.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
type Method = (typeof METHODS)[number];
const WITH_BODY = new Set<Method>(['post', 'put', 'patch', 'delete']);
/** Headers every response of an error status carries. */
const ERROR_HEADERS: Record<number, ResponseHeaderName[]> = { 401: ['WWW-Authenticate'], 405: ['Allow'], 429: ['Retry-After'], 503: ['Retry-After'] };

const TAG_DESCRIPTIONS: Record<string, string> = {
  posts: 'Posts, newest first',
  comments: 'Comments on posts, oldest first',
  tags: 'Tags on posts, most used first',
  media: 'Uploaded images, their variants and files, newest first',
  users: 'Users (sign-up, profiles), their API keys and tokens',
  auth: 'Sign-in: bearer tokens',
  operations: 'Health and metrics of the service',
  webhooks: 'Webhooks (admins): events POSTed to your URLs, signed per Standard Webhooks',
  events: 'The event log: every write, oldest first, resumable by cursor',
  audit: 'The audit log (admins): every change and security event, newest first; as NDJSON, the whole log for export',
  publication: 'What readers and crawlers follow: the feed (Atom, RSS, JSON Feed), the sitemap and robots.txt',
};

/** The statuses an operation may answer besides those its decorators declare. */
function commonStatuses(method: Method, path: string, operation: OperationObject, negotiated: boolean, needsCredential: boolean): number[] {
  const hasPathParameters = path.includes('{');
  return [
    400, // a malformed URL, a bad id, query or body
    401, // a bad credential is refused on every route, public ones too
    ...(needsCredential ? [403] : []),
    ...(hasPathParameters ? [404, 414] : []), // 414: a path segment longer than the router's limit
    405, // a method the path does not serve
    ...(negotiated && method === 'get' ? [406] : []),
    ...(WITH_BODY.has(method) || operation.requestBody ? [413, 415] : []),
    429,
    500,
    503,
  ];
}

/** What the service says for each code, as the example of its status. */
const EXAMPLE_DETAILS: Partial<Record<ErrorCode, string>> = {
  UNAUTHENTICATED: 'A valid bearer token is required',
  FORBIDDEN: 'You are not allowed to do this',
  CONFLICT: 'The resource conflicts with an existing one',
  CURSOR_EXPIRED: 'Events after this cursor have been pruned (they are kept EVENTS_RETENTION_DAYS days); read again from the oldest kept (no cursor)',
  PRECONDITION_FAILED: 'The resource has changed since you read it (If-Match failed)',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the limit',
  URI_TOO_LONG: 'A path segment is longer than the limit',
  UNSUPPORTED_MEDIA_TYPE: 'The request body must be JSON (Content-Type: application/json)',
  RATE_LIMITED: 'Too many requests; try again in 42 s',
  INTERNAL_SERVER_ERROR: 'An unexpected error occurred',
  SERVICE_UNAVAILABLE: 'The database is unavailable; try again shortly',
};

/** The path of an example request: each `{name}` by its parameter's example, or 1 for an id. */
function examplePath(path: string, operation: OperationObject): string {
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    const example = parameter?.example ?? (parameter?.schema as SchemaObject | undefined)?.example;
    return example === undefined ? '1' : String(example);
  });
}

/** The field an example 400 names: a path parameter, else a body member, else a query parameter. */
function exampleFieldError(operation: OperationObject, schemas: Record<string, SchemaObject | ReferenceObject>): FieldError | undefined {
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const path = parameters.find((parameter) => parameter.in === 'path');
  if (path) return { field: path.name, message: (path.schema as SchemaObject | undefined)?.type === 'integer' ? 'must be a positive integer' : 'is not valid' };
  const body = operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content['application/json']?.schema : undefined;
  const target = isReference(body) ? schemas[body.$ref.split('/').pop()!] : body;
  const member = target && !isReference(target) ? Object.keys(target.properties ?? {})[0] : undefined;
  if (member) return { field: member, message: 'must be a string' };
  const query = parameters.find((parameter) => parameter.in === 'query');
  return query ? { field: query.name, message: 'is not valid' } : undefined;
}

/** The methods a path serves, as its 405's Allow lists them. */
const allowedMethods = (item: PathItemObject) =>
  ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'].filter((method) => item[method as Method] || (method === 'head' && item.get)).map((method) => method.toUpperCase());

/** The problem a status of this operation answers with, as the service writes it. */
function exampleProblem(status: number, path: string, item: PathItemObject, operation: OperationObject, schemas: Record<string, SchemaObject | ReferenceObject>): ProblemDetails {
  const code = codeForStatus(status);
  const instance = examplePath(path, operation);
  let detail = EXAMPLE_DETAILS[code] ?? ERROR_CODES[code].title;
  let fieldErrors: FieldError[] | undefined;
  if (code === 'BAD_USER_INPUT') {
    const fieldError = exampleFieldError(operation, schemas);
    fieldErrors = fieldError && [fieldError];
    detail = fieldError ? `${fieldError.field} ${fieldError.message}` : 'The request URL is not valid (a malformed percent-encoding)';
  } else if (code === 'NOT_FOUND') {
    detail = `Nothing exists at ${instance}`;
  } else if (code === 'METHOD_NOT_ALLOWED') {
    const allow = allowedMethods(item);
    const method = ['PUT', 'POST', 'PATCH', 'DELETE', 'GET'].find((candidate) => !allow.includes(candidate)) ?? 'PUT';
    detail = `${method} is not served on this path; it serves ${allow.join(', ')}`;
  } else if (code === 'NOT_ACCEPTABLE') {
    detail = `None of the requested media types is available. Available: ${AVAILABLE_MEDIA_TYPES.join(', ')}`;
  }
  return toProblemDetails({ code, status, title: ERROR_CODES[code].title, detail, fieldErrors, unexpected: false }, instance);
}

const responsesOf = (operation: OperationObject) => operation.responses as Record<string, ResponseObject | ReferenceObject>;

const isReference = (value: unknown): value is ReferenceObject => typeof value === 'object' && value !== null && '$ref' in value;

/**
 * Completes the document Nest generates from the decorators, in one place for every route:
 * the errors every route can answer with their headers, security (optional unless @SignedIn),
 * integer path ids, closed request bodies, HEAD beside each GET (Fastify serves it), tags,
 * and `components` holding exactly what is referred to.
 */
export function completeDocument(document: OpenAPIObject, ownPaths: OpenAPIObject['paths'] = {}): OpenAPIObject {
  const problem = schemaRef('Problem', PROBLEM_SCHEMA);
  const components = document.components ?? {};
  const schemas: Record<string, SchemaObject | ReferenceObject> = { ...components.schemas, ...namedSchemas() };

  for (const [path, item] of Object.entries(document.paths)) {
    const served = METHODS.filter((method) => item[method]);
    for (const method of served) {
      const operation = item[method]!;
      operation.security ??= [{}, { bearer: [] }];
      const needsCredential = !operation.security.some((requirement) => Object.keys(requirement).length === 0);
      const negotiated = Object.entries(responsesOf(operation)).some(
        ([status, response]) => status.startsWith('2') && !isReference(response) && (response.content?.['text/html'] ?? response.content?.['application/atom+xml']) !== undefined,
      );

      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        const schema = parameter.schema as SchemaObject | undefined;
        if (parameter.in === 'path' && schema && (schema.type === 'number' || schema.type === 'integer')) {
          parameter.schema = { type: 'integer', minimum: 1, maximum: MAX_INT32 };
        }
      }
      for (const media of Object.values(operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content : {})) {
        let target = isReference(media.schema) ? schemas[media.schema.$ref.split('/').pop()!] : media.schema;
        // A list of items (PATCH /comments): each item is closed.
        if (target && !isReference(target) && target.type === 'array') {
          const items = target.items;
          target = isReference(items) ? schemas[items.$ref.split('/').pop()!] : items;
        }
        // The validation pipe refuses unknown fields.
        if (target && !isReference(target) && target.type !== 'array') target.additionalProperties = false;
        if (isReference(media.schema) && target && !isReference(target) && needsAMember(media.schema.$ref.split('/').pop()!)) target.minProperties = 1;
      }

      for (const status of commonStatuses(method, path, operation, negotiated, needsCredential)) {
        responsesOf(operation)[status] ??= {
          description: Object.values(ERROR_CODES).find((entry) => entry.status === status)?.title ?? 'Error',
          content: { [PROBLEM_MEDIA_TYPE]: { schema: problem } },
        };
      }
      completeErrors(path, item, operation, schemas);
      withRateLimitHeaders(operation);
    }
    // Fastify answers HEAD on every GET route: the GET's statuses and headers, without a body.
    if (item.get && !item.head) item.head = headOf(item.get);
  }
  // Routes outside Nest (no guard, no database): described by whoever serves them, their errors completed alike.
  for (const [path, item] of Object.entries(ownPaths)) {
    document.paths[path] = item;
    for (const method of METHODS) {
      if (!item[method]) continue;
      completeErrors(path, item, item[method], schemas);
      withRateLimitHeaders(item[method]);
    }
    if (item.get && !item.head) item.head = headOf(item.get);
  }

  const tags = [...new Set(Object.values(document.paths).flatMap((item) => METHODS.flatMap((method) => item[method]?.tags ?? [])))];
  const completed: OpenAPIObject = {
    ...document,
    servers: document.servers?.length ? document.servers : [{ url: '/', description: 'This service' }],
    tags: tags.sort().map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
    components: {
      ...components,
      schemas,
      headers: Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, header]) => [name, { ...header, required: true }])),
    },
  };
  return withoutUnusedComponents(completed);
}

/** Every answer the request limit counts may carry RateLimit-Policy and RateLimit (none when RATE_LIMIT_MAX=0). */
function withRateLimitHeaders(operation: OperationObject): void {
  for (const response of Object.values(responsesOf(operation))) {
    if (isReference(response)) continue;
    response.headers = { ...response.headers, 'RateLimit-Policy': headerRef('RateLimit-Policy', false), RateLimit: headerRef('RateLimit', false) };
  }
}

/**
 * The error responses of an operation as the filter serves them: each status's headers; its
 * problem in every format Accept may pick (problem+json, problem+xml, an HTML page, the last not
 * for a 406, which HTML would not have been); and as the example of each, that status's problem.
 */
function completeErrors(path: string, item: PathItemObject, operation: OperationObject, schemas: Record<string, SchemaObject | ReferenceObject>): void {
  for (const [status, response] of Object.entries(responsesOf(operation))) {
    if (Number(status) < 400 || isReference(response)) continue;
    const headers = ERROR_HEADERS[Number(status)] ?? [];
    if (headers.length > 0) response.headers = { ...Object.fromEntries(headers.map((name) => [name, headerRef(name)])), ...response.headers };
    const json = response.content?.[PROBLEM_MEDIA_TYPE];
    // A route's own problem (/health's 503) gets the XML of its JSON example here, when the
    // document is built, not when its decorator runs at start-up (xmlbuilder2 loads lazily).
    const xml = response.content?.[PROBLEM_XML_MEDIA_TYPE];
    if (xml && xml.example === undefined && json?.example !== undefined) xml.example = renderProblemXml(json.example as ProblemDetails);
    // Only what the filter sends (a route that writes its own problem, /health's 503, declares its own).
    if (!json || !isReference(json.schema) || json.schema.$ref !== '#/components/schemas/Problem') continue;
    const example = exampleProblem(Number(status), path, item, operation, schemas);
    response.content = {
      [PROBLEM_MEDIA_TYPE]: { ...json, example },
      [PROBLEM_XML_MEDIA_TYPE]: { schema: { type: 'string' }, example: renderProblemXml(example) },
      ...(Number(status) === 406 ? {} : { 'text/html': { schema: { type: 'string' } } }),
    };
  }
}

function headOf(get: OperationObject): OperationObject {
  const responses: Record<string, ResponseObject | ReferenceObject> = {};
  for (const [status, response] of Object.entries(responsesOf(get))) {
    responses[status] = isReference(response) ? response : { description: response.description, ...(response.headers ? { headers: response.headers } : {}) };
  }
  return {
    ...get,
    operationId: get.operationId ? `${get.operationId}_head` : undefined,
    summary: `${get.summary ?? ''} (headers only)`.trim(),
    responses,
  };
}

/** Drops components nothing refers to (followed transitively from paths). */
function withoutUnusedComponents(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const used = new Set<string>();
  const pending: unknown[] = [document.paths];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/') && !used.has(child)) {
        used.add(child);
        const [, , section, name] = child.split('/');
        // A schema named as the walk reads it (an event's, whose getter runs late) is added now.
        if (section === 'schemas' && components.schemas && components.schemas[name] === undefined) components.schemas[name] = namedSchemas()[name];
        pending.push(components[section]?.[name]);
      } else {
        pending.push(child);
      }
    }
  }
  for (const section of ['schemas', 'headers', 'responses', 'parameters']) {
    const entries = components[section];
    if (!entries) continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${section}/${name}`)) delete entries[name];
  }
  return document;
}
