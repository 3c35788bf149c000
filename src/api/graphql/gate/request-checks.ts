import { GraphQLError } from 'graphql';
import { findStringProblem, isWellFormed, NOT_WELL_FORMED, textProblem } from '../../../common/validation/well-formed.js';
import { refusal } from './refusal.js';

/** An operation as a client sent it: nothing here is trusted yet. */
export interface RawOperation {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
  extensions?: unknown;
}

/** Variables deeper than this fit no input type of the schema; walking them could exhaust the stack. */
const MAX_VARIABLE_DEPTH = 32;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const present = (value: unknown) => value !== undefined && value !== null;

/** A request of the right shape (null fields read as absent), its strings well-formed. */
export interface CheckedRequest {
  query?: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  extensions?: Record<string, unknown>;
}

/**
 * What is checked before anything reads the request: its shape (a GraphQL request's fields with
 * their types), the depth of its variables, and that every string in it is well-formed Unicode.
 */
export function checkRequest(raw: RawOperation): CheckedRequest | GraphQLError {
  const { query, variables, operationName, extensions } = raw;
  if (present(query) && typeof query !== 'string') return refusal('BAD_REQUEST', 400, 'The query must be a string');
  if (present(variables) && !isRecord(variables)) return refusal('BAD_REQUEST', 400, 'The variables must be an object');
  if (present(operationName) && typeof operationName !== 'string') return refusal('BAD_REQUEST', 400, 'The operationName must be a string');
  if (present(extensions) && !isRecord(extensions)) return refusal('BAD_REQUEST', 400, 'The extensions must be an object');
  const checked = { query: query ?? undefined, variables: variables ?? undefined, operationName: operationName ?? undefined, extensions: extensions ?? undefined } as CheckedRequest;
  if (checked.variables && nestsDeeperThan(checked.variables, MAX_VARIABLE_DEPTH)) {
    return refusal('BAD_USER_INPUT', 400, `The variables nest deeper than ${MAX_VARIABLE_DEPTH} levels`);
  }
  return illFormedRequest(checked) ?? checked;
}

/** The size of a document's text and how deep its brackets nest: checked before it is parsed. */
export function checkDocumentText(query: string, maxBytes: number, maxNesting: number): GraphQLError | undefined {
  // Counted as sent, comments and all.
  if (query.length > maxBytes || (query.length * 3 > maxBytes && Buffer.byteLength(query) > maxBytes)) {
    return refusal('PAYLOAD_TOO_LARGE', 413, `The GraphQL document is larger than ${maxBytes} bytes`);
  }
  if (nestingDepth(query, maxNesting) > maxNesting) {
    return refusal('GRAPHQL_PARSE_FAILED', 400, `Syntax Error: the document nests deeper than ${maxNesting} levels`);
  }
  return undefined;
}

const notWellFormed = (text: string) => (isWellFormed(text) ? undefined : NOT_WELL_FORMED);

/**
 * A string of the request that is not well-formed Unicode (a lone surrogate, which JSON's `\udc00`
 * escape can write): refused before anything reads it, on every transport. In the document
 * (graphql-js refuses it too, but its hash would be that of the text with U+FFFD in its place),
 * the operation's name, the extensions, and any variable: BAD_USER_INPUT naming it. A variable
 * is held to the text rule of every door (textProblem: no NUL or other control character either),
 * as the arguments written in the document are by the validation pipe.
 */
function illFormedRequest({ query, operationName, variables, extensions }: CheckedRequest): GraphQLError | undefined {
  if (typeof query === 'string' && !isWellFormed(query)) {
    return refusal('GRAPHQL_PARSE_FAILED', 400, 'Syntax Error: the document is not well-formed Unicode (it holds a lone surrogate)');
  }
  if (typeof operationName === 'string' && !isWellFormed(operationName)) return refusal('BAD_REQUEST', 400, `The operationName ${NOT_WELL_FORMED}`);
  const extension = findStringProblem(extensions, notWellFormed);
  if (extension) return refusal('BAD_REQUEST', 400, `extensions.${extension.field} ${NOT_WELL_FORMED}`);
  const variable = findStringProblem(variables, textProblem);
  if (!variable) return undefined;
  const name = variable.field.split('.')[0];
  const where = variable.field === name ? '' : ` (at ${variable.field})`;
  return new GraphQLError(`Variable "$${name}"${where} ${variable.message}`, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 }, fieldErrors: [{ field: variable.field, message: variable.message }] },
  });
}

/** Whether a JSON value nests deeper than `limit` (iteratively: the value may be 100,000 levels deep). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * How deep `{`, `[` and `(` nest in a document, outside strings and comments (a linear scan
 * that stops as soon as `limit` is passed): graphql-js parses recursively, and a literal nested
 * a few thousand deep would overflow the stack.
 */
export function nestingDepth(query: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let index = 0; index < query.length; index += 1) {
    const char = query[index];
    if (char === '#') {
      while (index < query.length && query[index] !== '\n' && query[index] !== '\r') index += 1;
    } else if (char === '"') {
      if (query.startsWith('"""', index)) {
        // Escaped triple quotes (\""") inside a block string do not end it.
        let close = query.indexOf('"""', index + 3);
        while (close !== -1 && query[close - 1] === '\\') close = query.indexOf('"""', close + 3);
        index = close === -1 ? query.length : close + 2;
      } else {
        index += 1;
        while (index < query.length && query[index] !== '"' && query[index] !== '\n') index += query[index] === '\\' ? 2 : 1;
      }
    } else if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === '}' || char === ']' || char === ')') {
      depth -= 1;
    }
  }
  return deepest;
}
