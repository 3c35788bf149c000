import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../errors/error-code.js';
import { PROBLEM_MEDIA_TYPE } from './api-docs.decorators.js';
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
  users: 'Users (sign-up, profiles), their API keys and tokens',
  auth: 'Sign-in: bearer tokens',
  operations: 'Health and metrics of the service',
  webhooks: 'Webhooks (admins): events POSTed to your URLs, signed per Standard Webhooks',
  events: 'The event log: every write, oldest first, resumable by cursor',
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
        ([status, response]) => status.startsWith('2') && !isReference(response) && response.content?.['text/html'] !== undefined,
      );

      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        const schema = parameter.schema as SchemaObject | undefined;
        if (parameter.in === 'path' && schema && (schema.type === 'number' || schema.type === 'integer')) {
          parameter.schema = { type: 'integer', minimum: 1, maximum: MAX_INT32 };
        }
      }
      for (const media of Object.values(operation.requestBody && !isReference(operation.requestBody) ? operation.requestBody.content : {})) {
        const target = isReference(media.schema) ? schemas[media.schema.$ref.split('/').pop()!] : media.schema;
        // The validation pipe refuses unknown fields.
        if (target && !isReference(target)) target.additionalProperties = false;
      }

      for (const status of commonStatuses(method, path, operation, negotiated, needsCredential)) {
        responsesOf(operation)[status] ??= {
          description: Object.values(ERROR_CODES).find((entry) => entry.status === status)?.title ?? 'Error',
          content: { [PROBLEM_MEDIA_TYPE]: { schema: problem } },
        };
      }
      for (const [status, response] of Object.entries(responsesOf(operation))) {
        if (Number(status) < 400 || isReference(response)) continue;
        const headers = ERROR_HEADERS[Number(status)] ?? [];
        if (headers.length > 0) response.headers = { ...Object.fromEntries(headers.map((name) => [name, headerRef(name)])), ...response.headers };
        // An error of a route that renders HTML is an HTML page when Accept asks for text/html.
        if (negotiated && Number(status) !== 406) response.content = { ...response.content, 'text/html': { schema: { type: 'string' } } };
      }
    }
    // Fastify answers HEAD on every GET route: the GET's statuses and headers, without a body.
    if (item.get && !item.head) item.head = headOf(item.get);
  }
  // Routes outside Nest (no guard, no database): described completely by whoever serves them.
  for (const [path, item] of Object.entries(ownPaths)) {
    document.paths[path] = item;
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
