/**
 * Structural checks of an OpenAPI 3.0 document, standing in for a linter (Redocly's
 * `recommended` rules): the fields each object may hold, and the rules named beside each check.
 * Returns the problems found, each naming where.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const ROOT_KEYS = ['openapi', 'info', 'servers', 'paths', 'components', 'security', 'tags', 'externalDocs'];
const PATH_ITEM_KEYS = [...METHODS, 'summary', 'description', 'servers', 'parameters', '$ref'];
const OPERATION_KEYS = ['tags', 'summary', 'description', 'externalDocs', 'operationId', 'parameters', 'requestBody', 'responses', 'callbacks', 'deprecated', 'security', 'servers'];
const PARAMETER_KEYS = ['name', 'in', 'description', 'required', 'deprecated', 'allowEmptyValue', 'style', 'explode', 'allowReserved', 'schema', 'example', 'examples', 'content'];
const RESPONSE_KEYS = ['description', 'headers', 'content', 'links'];
const HEADER_KEYS = PARAMETER_KEYS.filter((key) => key !== 'name' && key !== 'in');
const MEDIA_TYPE_KEYS = ['schema', 'example', 'examples', 'encoding'];
const SCHEMA_KEYS = [
  'title', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'enum', 'type', 'allOf', 'oneOf',
  'anyOf', 'not', 'items', 'properties', 'additionalProperties', 'description', 'format', 'default', 'nullable',
  'discriminator', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'example', 'deprecated', '$ref',
];
const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export function checkStructure(document: Json): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  const components = (isObject(document.components) ? document.components : {}) as Record<string, Json | undefined>;

  const unknownKeys = (where: string, value: Json, allowed: string[]) => {
    for (const key of Object.keys(value)) if (!allowed.includes(key) && !key.startsWith('x-')) problems.push(`${where}: unknown key ${key}`);
  };
  /** Follows a $ref (no-unresolved-refs), marking the component used. */
  const resolve = (where: string, value: unknown): Json | undefined => {
    let current = value;
    for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth += 1) {
      const ref = current.$ref;
      const [hash, , section, name, ...rest] = ref.split('/');
      if (hash !== '#' || rest.length > 0 || !section || !name || !components[section]?.[name] || depth > 10) {
        problems.push(`${where}: unresolved $ref ${ref}`);
        return undefined;
      }
      if (!used.has(ref)) {
        used.add(ref);
        if (section === 'schemas') schema(`#/components/schemas/${name}`, components.schemas![name]);
        if (section === 'headers') header(`#/components/headers/${name}`, components.headers![name]);
      }
      current = components[section]![name];
    }
    return isObject(current) ? current : undefined;
  };

  function schema(where: string, value: unknown): void {
    if (!isObject(value)) return void problems.push(`${where}: a schema must be an object`);
    if (typeof value.$ref === 'string') {
      if (Object.keys(value).some((key) => key !== '$ref' && !key.startsWith('x-'))) problems.push(`${where}: siblings of $ref are ignored in 3.0`);
      resolve(where, value);
      return;
    }
    for (const key of Object.keys(value)) {
      if (!SCHEMA_KEYS.includes(key) && !key.startsWith('x-')) problems.push(`${where}: keyword ${key} is not OpenAPI 3.0`);
    }
    if (value.type !== undefined && !TYPES.includes(value.type as string)) problems.push(`${where}: type ${JSON.stringify(value.type)} is not OpenAPI 3.0`);
    if (value.nullable !== undefined && value.type === undefined) problems.push(`${where}: nullable without type (nullable-type-sibling)`);
    if (value.type === 'array' && value.items === undefined) problems.push(`${where}: an array without items`);
    if (Array.isArray(value.enum) && typeof value.type === 'string') {
      const ok = (item: unknown) => (value.type === 'integer' ? Number.isInteger(item) : typeof item === value.type || (item === null && value.nullable === true));
      if (!value.enum.every(ok)) problems.push(`${where}: enum values do not match the type (no-enum-type-mismatch)`);
    }
    const properties = isObject(value.properties) ? value.properties : {};
    if (Array.isArray(value.required)) {
      for (const name of value.required) if (!(name in properties)) problems.push(`${where}: required ${String(name)} is not a property (no-required-schema-properties-undefined)`);
    }
    for (const [name, property] of Object.entries(properties)) schema(`${where}/properties/${name}`, property);
    if (value.items !== undefined) schema(`${where}/items`, value.items);
    if (isObject(value.additionalProperties)) schema(`${where}/additionalProperties`, value.additionalProperties);
    for (const key of ['allOf', 'oneOf', 'anyOf']) if (Array.isArray(value[key])) (value[key] as unknown[]).forEach((item, index) => schema(`${where}/${key}/${index}`, item));
    if (value.not !== undefined) schema(`${where}/not`, value.not);
  }

  function header(where: string, value: unknown): void {
    const resolved = resolve(where, value);
    if (!resolved) return;
    unknownKeys(where, resolved, HEADER_KEYS);
    if (resolved.schema === undefined && resolved.content === undefined) problems.push(`${where}: a header without schema`);
    if (resolved.schema !== undefined) schema(`${where}/schema`, resolved.schema);
  }

  function content(where: string, value: unknown): void {
    if (!isObject(value)) return void problems.push(`${where}: content must be an object`);
    for (const [type, media] of Object.entries(value)) {
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(type)) problems.push(`${where}: ${type} is not a media type`);
      if (!isObject(media)) continue;
      unknownKeys(`${where}/${type}`, media, MEDIA_TYPE_KEYS);
      if (media.schema !== undefined) schema(`${where}/${type}/schema`, media.schema);
    }
  }

  unknownKeys('root', document, ROOT_KEYS);
  if (typeof document.openapi !== 'string' || !/^3\.0\.\d+$/.test(document.openapi)) problems.push('root: openapi is not 3.0.x');
  const info = isObject(document.info) ? document.info : {};
  if (typeof info.title !== 'string' || typeof info.version !== 'string') problems.push('info: title and version are required');
  // no-empty-servers, no-server-example.com
  if (!Array.isArray(document.servers) || document.servers.length === 0) problems.push('root: no servers (no-empty-servers)');
  for (const server of (document.servers ?? []) as Json[]) {
    if (typeof server.url !== 'string' || /example\.com/.test(server.url)) problems.push(`servers: bad url ${String(server.url)}`);
  }

  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const declaredTags = new Map(((document.tags ?? []) as Json[]).map((tag) => [tag.name as string, tag]));
  for (const [name, tag] of declaredTags) if (typeof tag.description !== 'string') problems.push(`tags: ${name} has no description (tag-description)`);

  const operationIds = new Set<string>();
  const normalizedPaths = new Map<string, string>();
  const paths = isObject(document.paths) ? document.paths : {};
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/')) problems.push(`${path}: does not start with /`);
    if (path.length > 1 && path.endsWith('/')) problems.push(`${path}: trailing slash (no-path-trailing-slash)`);
    if (path.includes('?')) problems.push(`${path}: a query in the path (path-not-include-query)`);
    const normalized = path.replace(/\{[^}]+\}/g, '{}');
    if (normalizedPaths.has(normalized)) problems.push(`${path}: identical to ${normalizedPaths.get(normalized)} (no-identical-paths)`);
    normalizedPaths.set(normalized, path);
    if (!isObject(item)) continue;
    unknownKeys(path, item, PATH_ITEM_KEYS);
    const templateParameters = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);

    for (const method of METHODS.filter((name) => item[name] !== undefined)) {
      const label = `${method.toUpperCase()} ${path}`;
      const operation = item[method] as Json;
      unknownKeys(label, operation, OPERATION_KEYS);
      // operation-operationId, operation-operationId-unique, operation-operationId-url-safe
      if (typeof operation.operationId !== 'string') problems.push(`${label}: no operationId`);
      else {
        if (operationIds.has(operation.operationId)) problems.push(`${label}: operationId ${operation.operationId} is not unique`);
        if (!/^[A-Za-z0-9_.~-]+$/.test(operation.operationId)) problems.push(`${label}: operationId is not URL-safe`);
        operationIds.add(operation.operationId);
      }
      if (typeof operation.summary !== 'string' || operation.summary === '') problems.push(`${label}: no summary (operation-summary)`);
      const tags = (operation.tags ?? []) as string[];
      if (tags.length === 0) problems.push(`${label}: no tags`);
      for (const tag of tags) if (!declaredTags.has(tag)) problems.push(`${label}: tag ${tag} is not declared (operation-tag-defined)`);

      // security-defined
      const security = (operation.security ?? document.security) as Json[] | undefined;
      if (!Array.isArray(security)) problems.push(`${label}: no security (security-defined)`);
      for (const requirement of security ?? []) {
        for (const scheme of Object.keys(requirement)) if (!(scheme in schemes)) problems.push(`${label}: security scheme ${scheme} is not declared`);
      }

      // operation-parameters-unique, path-parameters-defined
      const seen = new Set<string>();
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const resolved = resolve(label, parameter);
        if (!resolved) continue;
        unknownKeys(`${label} parameter ${String(resolved.name)}`, resolved, PARAMETER_KEYS);
        const key = `${String(resolved.in)}:${String(resolved.name)}`;
        if (seen.has(key)) problems.push(`${label}: parameter ${key} declared twice (operation-parameters-unique)`);
        seen.add(key);
        if (!['path', 'query', 'header', 'cookie'].includes(resolved.in as string)) problems.push(`${label}: parameter ${String(resolved.name)} has a bad "in"`);
        if (resolved.schema === undefined && resolved.content === undefined) problems.push(`${label}: parameter ${String(resolved.name)} has no schema`);
        else if (resolved.schema !== undefined) schema(`${label} parameter ${String(resolved.name)}`, resolved.schema);
        if (resolved.in === 'path') {
          if (resolved.required !== true) problems.push(`${label}: path parameter ${String(resolved.name)} is not required`);
          if (!templateParameters.includes(resolved.name as string)) problems.push(`${label}: path parameter ${String(resolved.name)} is not in the path`);
        }
      }
      for (const name of templateParameters) if (!seen.has(`path:${name}`)) problems.push(`${label}: path parameter ${name} not declared (path-parameters-defined)`);

      if (operation.requestBody !== undefined) {
        const body = resolve(label, operation.requestBody);
        if (body) content(`${label} requestBody`, body.content);
      }

      const responses = isObject(operation.responses) ? operation.responses : {};
      const statuses = Object.keys(responses);
      if (!statuses.some((status) => /^2/.test(status))) problems.push(`${label}: no 2xx response (operation-2xx-response)`);
      if (!statuses.some((status) => /^4/.test(status))) problems.push(`${label}: no 4xx response (operation-4xx-response)`);
      for (const [status, value] of Object.entries(responses)) {
        const where = `${label} ${status}`;
        if (!/^([1-5](\d\d|XX)|default)$/.test(status)) problems.push(`${where}: not a status`);
        const response = resolve(where, value);
        if (!response) continue;
        unknownKeys(where, response, RESPONSE_KEYS);
        if (typeof response.description !== 'string') problems.push(`${where}: no description`);
        for (const [name, headerValue] of Object.entries(isObject(response.headers) ? response.headers : {})) {
          if (name.toLowerCase() === 'content-type') problems.push(`${where}: Content-Type is not a header to declare`);
          header(`${where} header ${name}`, headerValue);
        }
        if (response.content !== undefined) content(where, response.content);
      }
    }
  }

  // no-unused-components
  for (const [section, entries] of Object.entries(components)) {
    if (section === 'securitySchemes' || !isObject(entries)) continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${section}/${name}`)) problems.push(`#/components/${section}/${name} is not used (no-unused-components)`);
  }
  return problems;
}
