/**
 * `String.prototype.isWellFormed` (ES2024; Node 20 has it, the project's type library is ES2023):
 * false when the text holds a lone surrogate, which no encoding can carry and which some
 * validators (class-validator's isEmail, through decodeURI) throw on.
 */
export const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

export const NOT_WELL_FORMED = 'must be well-formed Unicode (it holds a lone surrogate)';
export const HOLDS_NUL = 'must not contain NUL characters';
export const HOLDS_CONTROL = 'must not contain control characters (U+0001-U+001F other than tab, line feed and carriage return, or U+007F)';

// eslint-disable-next-line no-control-regex -- the control characters are the point
const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/**
 * What is wrong with a string of the client's, if anything: U+0000 (PostgreSQL cannot hold it in
 * text, SQLite's FTS5 reads it as the end of the string), another C0 control or DEL (tab, line feed
 * and carriage return are text), or a lone surrogate. The rule of every door: REST parameters,
 * headers and bodies, GraphQL arguments and variables on every transport.
 */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return HOLDS_NUL;
  if (CONTROL.test(text)) return HOLDS_CONTROL;
  return isWellFormed(text) ? undefined : NOT_WELL_FORMED;
}

/** What is wrong with a string of the client's, if anything: a lone surrogate, or (where asked) a control character. */
export function stringProblem(text: string, refuseControls: boolean): string | undefined {
  if (refuseControls) return textProblem(text);
  return isWellFormed(text) ? undefined : NOT_WELL_FORMED;
}

export interface StringProblem {
  /** Where: the dotted path of the string, or of the key (`input.tags.0`); `''` for the value itself. */
  field: string;
  message: string;
}

const MAX_DEPTH = 32;

/**
 * Whether a value is data rather than one of the server's objects: an array, or an object whose
 * prototype chain holds no class but Object. Fastify's query objects are made by a constructor
 * whose prototype is `Object.create(null)` (fast-querystring): data too.
 */
function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return true;
  let prototype = Object.getPrototypeOf(value) as object | null;
  for (let depth = 0; prototype !== null && prototype !== Object.prototype; depth += 1) {
    if (depth > 2 || Reflect.ownKeys(prototype).length > 0) return false;
    prototype = Object.getPrototypeOf(prototype) as object | null;
  }
  return true;
}

/**
 * The first string of a parsed JSON value (a body, GraphQL variables, query parameters), or key of
 * one of its objects, that `problemOf` finds wrong. Only plain data is walked (not class
 * instances), at most 32 levels deep (deeper input is refused for that before).
 */
export function findStringProblem(
  value: unknown,
  problemOf: (text: string) => string | undefined,
  path = '',
  depth = 0,
): StringProblem | undefined {
  if (typeof value === 'string') {
    const message = problemOf(value);
    return message === undefined ? undefined : { field: path, message };
  }
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH || !isPlainData(value)) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyMessage = problemOf(key);
    if (keyMessage !== undefined) return { field: childPath, message: keyMessage };
    const found = findStringProblem(child, problemOf, childPath, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
