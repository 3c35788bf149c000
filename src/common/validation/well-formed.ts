/**
 * `String.prototype.isWellFormed` (ES2024; Node 20 has it, the project's type library is ES2023):
 * false when the text holds a lone surrogate, which no encoding can carry and which some
 * validators (class-validator's isEmail, through decodeURI) throw on.
 */
export const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

export const NOT_WELL_FORMED = 'must be well-formed Unicode (it holds a lone surrogate)';
export const HOLDS_NUL = 'must not contain NUL characters';

/** What is wrong with a string of the client's, if anything: a lone surrogate, or (where asked) U+0000. */
export function stringProblem(text: string, refuseNul: boolean): string | undefined {
  if (refuseNul && text.includes('\u0000')) return HOLDS_NUL;
  return isWellFormed(text) ? undefined : NOT_WELL_FORMED;
}

export interface StringProblem {
  /** Where: the dotted path of the string, or of the key (`input.tags.0`); `''` for the value itself. */
  field: string;
  message: string;
}

const MAX_DEPTH = 32;

/**
 * The first string of a parsed JSON value (a body, GraphQL variables, query parameters), or key of
 * one of its objects, that `problemOf` finds wrong. Only plain objects and arrays are walked (not
 * class instances), at most 32 levels deep (deeper input is refused for that before).
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
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    const keyMessage = problemOf(key);
    if (keyMessage !== undefined) return { field: childPath, message: keyMessage };
    const found = findStringProblem(child, problemOf, childPath, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
