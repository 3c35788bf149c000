import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { Response } from 'supertest';

/**
 * Checks real responses against the service's own OpenAPI document: the operation is found by
 * method and path template; its status must be declared; every header the response object
 * declares as required must be present and every header of HEADERS_TO_DECLARE that is present
 * must be declared; the media type (parameters such as charset aside) must be declared for a body,
 * and a body must not be sent where none is declared; a JSON body must match its schema; a
 * success to an anonymous caller needs an operation whose security accepts anonymous callers.
 */

interface Reference {
  $ref: string;
}
type Json = Record<string, unknown>;
interface MediaTypeObject {
  schema?: Json;
  example?: unknown;
}
export interface ResponseObject {
  description: string;
  headers?: Record<string, Json | Reference>;
  content?: Record<string, MediaTypeObject>;
}
export interface OperationObject {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema?: Json }[];
  requestBody?: { content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Reference>;
}
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  security?: Record<string, string[]>[];
  components: Record<string, Record<string, unknown> | undefined>;
}

/** The headers the contract names: when a response carries one, its status must declare it. */
export const HEADERS_TO_DECLARE = ['location', 'etag', 'link', 'retry-after', 'www-authenticate', 'allow'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const addFormats = formatsPlugin as unknown as (ajv: Ajv) => Ajv;

export class OpenApiValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly routes: { method: string; template: string; pattern: RegExp; operation: OperationObject }[] = [];
  private readonly validators = new Map<object, ValidateFunction>();
  private readonly validatorsByText = new Map<string, ValidateFunction>();
  /** `get /posts/{id}` → the statuses seen, for coverage. */
  readonly seen = new Map<string, Set<number>>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addFormat('password', true);
    for (const [name, schema] of Object.entries(document.components.schemas ?? {})) {
      this.ajv.addSchema(this.rewriteRefs(schema) as Json, `schema:${name}`);
    }
    for (const [template, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of METHODS) if (item[method]) this.routes.push({ method, template, pattern, operation: item[method] });
    }
  }

  /** Resolves `#/components/<section>/<name>`. */
  resolve<T>(value: T | Reference): T {
    let current: unknown = value;
    for (let depth = 0; typeof current === 'object' && current !== null && '$ref' in current; depth += 1) {
      const [, , section, name] = (current as Reference).$ref.split('/');
      current = this.document.components[section]?.[name];
      if (current === undefined || depth > 10) throw new Error(`unresolved ${(value as Reference).$ref}`);
    }
    return current as T;
  }

  /** The operation a request is served by, or undefined. */
  find(method: string, url: string): { template: string; operation: OperationObject } | undefined {
    const path = url.split('?')[0];
    const candidates = this.routes.filter((route) => route.method === method.toLowerCase() && route.pattern.test(path));
    // A literal segment wins over a template (/users/{id}/posts over /users/{id}/{x}).
    candidates.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    return candidates[0];
  }

  /** The mismatches between a real response and the document (empty when it conforms). */
  check(method: string, url: string, response: Response, request: { anonymous: boolean }): string[] {
    const label = `${method.toUpperCase()} ${url} → ${response.status}`;
    const found = this.find(method, url);
    if (!found) return [`${label}: no operation for this method and path`];
    const key = `${method.toLowerCase()} ${found.template}`;
    if (!this.seen.has(key)) this.seen.set(key, new Set());
    this.seen.get(key)!.add(response.status);
    const { operation } = found;
    const problems: string[] = [];

    const declared = operation.responses[String(response.status)] ?? operation.responses[`${String(response.status)[0]}XX`] ?? operation.responses.default;
    if (!declared) return [`${label}: status not declared (declared: ${Object.keys(operation.responses).join(', ')})`];
    const definition = this.resolve(declared);

    // No requirement (none on the operation nor the document), or an empty one, admits anonymous callers.
    const security = operation.security ?? this.document.security ?? [];
    const anonymousAllowed = security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0);
    if (request.anonymous && response.status < 300 && !anonymousAllowed) {
      problems.push(`${label}: answered an anonymous caller, but security requires a credential`);
    }

    const declaredHeaders = new Map(Object.entries(definition.headers ?? {}).map(([name, header]) => [name.toLowerCase(), this.resolve(header)]));
    for (const [name, header] of declaredHeaders) {
      if (header.required === true && response.headers[name] === undefined) problems.push(`${label}: required header ${name} missing`);
      const schema = header.schema as Json | undefined;
      if (response.headers[name] !== undefined && schema) {
        const raw = String(response.headers[name]);
        const value = schema.type === 'integer' && /^\d+$/.test(raw) ? Number(raw) : raw;
        const validate = this.validator(schema);
        if (!validate(value)) problems.push(`${label}: header ${name}: ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    for (const name of HEADERS_TO_DECLARE) {
      if (response.headers[name] !== undefined && !declaredHeaders.has(name)) problems.push(`${label}: header ${name} sent but not declared`);
    }

    const contentType = response.headers['content-type'] as string | undefined;
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    const body = response.text ?? '';
    const hasBody = method.toLowerCase() !== 'head' && response.status !== 204 && response.status !== 304 && body.length > 0;
    const content = definition.content ?? {};
    if (hasBody) {
      if (!mediaType) problems.push(`${label}: a body without Content-Type`);
      else if (!content[mediaType]) problems.push(`${label}: media type ${mediaType} not declared (declared: ${Object.keys(content).join(', ') || 'none'})`);
      else if (content[mediaType].schema) {
        let data: unknown = body;
        if (/[/+]json$/.test(mediaType)) {
          try {
            data = JSON.parse(body);
          } catch {
            problems.push(`${label}: ${mediaType} body is not JSON`);
          }
        }
        const validate = this.validator(content[mediaType].schema);
        if (!validate(data)) problems.push(`${label}: body does not match the schema: ${this.ajv.errorsText(validate.errors)}`);
      }
    } else if (method.toLowerCase() !== 'head' && response.status !== 304 && Object.keys(content).length > 0 && body.length === 0) {
      problems.push(`${label}: no body, but the document declares one`);
    }
    return problems;
  }

  /** The mismatches of a value (an example, a generated parameter) against a schema of the document; empty when it conforms. */
  schemaErrors(schema: Json, data: unknown): string[] {
    const key = JSON.stringify(schema);
    let validate = this.validatorsByText.get(key);
    if (!validate) this.validatorsByText.set(key, (validate = this.validator(schema)));
    return validate(data) ? [] : [this.ajv.errorsText(validate.errors)];
  }

  private validator(schema: Json): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(this.rewriteRefs(schema) as Json);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** `#/components/schemas/X` → the schema added to Ajv as `schema:X`. */
  private rewriteRefs(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.rewriteRefs(item));
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) =>
        key === '$ref' && typeof child === 'string' ? [key, child.replace('#/components/schemas/', 'schema:')] : [key, this.rewriteRefs(child)],
      ),
    );
  }
}
