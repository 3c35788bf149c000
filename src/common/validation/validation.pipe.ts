import { type ArgumentMetadata, Injectable, type PipeTransform, ValidationPipe } from '@nestjs/common';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { DomainError, type FieldError } from '../errors/domain-error.js';
import { findStringProblem, textProblem } from './well-formed.js';
import { MAX_INT32, MAX_PARAMETER_CHARS } from './limits.js';

const MESSAGES: Record<string, (field: string) => string> = {
  whitelistValidation: (field) => `${field} is not a known or writable field`,
};

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([name, message]) => ({
      field,
      message: MESSAGES[name]?.(field) ?? message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Leaves single path and query values as the strings they arrived as: the stock pipe would
 * turn `@Param('id') id: number` into `+value` before ParseIdPipe sees it, so `/users/01`
 * or `/users/1e3` would pass as ids 1 and 1000.
 */
class StrictValidationPipe extends ValidationPipe {
  constructor(
    options: ConstructorParameters<typeof ValidationPipe>[0],
    private readonly context: object | undefined,
  ) {
    super(options);
  }

  /**
   * Flat inputs that passed, per class: the same few argument sets (`{first: 50}`, `{limit: 20}`)
   * come with nearly every request, and class-transformer + class-validator cost far more than
   * a look-up. Only successes are kept (a refusal is worked out afresh, with its messages).
   */
  private readonly passed = new WeakMap<object, Map<string, object>>();

  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }

  protected override validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> | ValidationError[] {
    if (this.context !== undefined) Object.defineProperty(object, CONTEXT, { value: this.context });
    return super.validate(object, validatorOptions);
  }

  /**
   * Before any other check, every string (and key) of the input is refused when it holds a NUL
   * character (PostgreSQL cannot store it in text), another control character, or a lone surrogate
   * (no encoding carries it, and class-validator's isEmail throws on it): 400, naming the field.
   * A path or query parameter is also refused past MAX_PARAMETER_CHARS, whatever its declaration.
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // `custom` parameters (the GraphQL context, root, info) are the server's own objects, not input:
    // never walked (their object graphs have cycles) nor validated, as the stock pipe does.
    if (metadata.type === 'custom') return super.transform(value, metadata);
    const metatype = metadata.metatype;
    const key = metatype && this.toValidate(metadata) ? flatKey(value) : undefined;
    if (key !== undefined) {
      const known = this.passed.get(metatype!)?.get(key);
      if (known !== undefined) return copyOf(known);
    }
    // No body at all (none sent, or an empty one under a JSON Content-Type) where a route reads the
    // whole of it. GraphQL arguments come as `body` too, but a named one (`@Args('filter')`) may be
    // absent and the whole set (`@Args()`) is always an object.
    if (metadata.type === 'body' && metadata.data === undefined && value === undefined) {
      throw DomainError.badInput('The request needs a JSON body', [{ field: 'body', message: 'is required' }]);
    }
    // JSON `null` as the whole body: the stock pipe would take it as `{}` (a PATCH that changes nothing).
    if (metadata.type === 'body' && metadata.data === undefined && value === null && metadata.metatype !== undefined && metadata.metatype !== Object) {
      throw DomainError.badInput('The request body must be a JSON object, not null', [{ field: 'body', message: 'must not be null' }]);
    }
    // class-transformer recurses without a bound: a body nested 10,000 deep overflowed the stack (500).
    if (nestedDeeperThan(value, MAX_NESTING)) {
      const name = metadata.data || metadata.type;
      throw DomainError.badInput(`${name} is nested more than ${MAX_NESTING} levels deep`, [
        { field: name, message: `must not nest more than ${MAX_NESTING} levels deep` },
      ]);
    }
    const parameter = metadata.type === 'query' || metadata.type === 'param';
    const problem = findStringProblem(value, parameter ? parameterProblem : textProblem, metadata.data ?? '');
    if (problem !== undefined) {
      const name = problem.field || metadata.type;
      throw DomainError.badInput(`${name} ${problem.message}`, [{ field: name, message: problem.message }]);
    }
    const result = await super.transform(value, metadata);
    if (key !== undefined && isCopyable(result)) {
      let known = this.passed.get(metatype!);
      if (known === undefined) this.passed.set(metatype!, (known = new Map()));
      if (known.size >= PASSED_PER_CLASS) known.clear();
      known.set(key, copyOf(result));
    }
    return result;
  }
}

const OVERLONG_PARAMETER = `must be at most ${MAX_PARAMETER_CHARS} characters`;
const parameterProblem = (text: string) => (text.length > MAX_PARAMETER_CHARS ? OVERLONG_PARAMETER : textProblem(text));

const PASSED_PER_CLASS = 256;
const MAX_FLAT_KEY = 1024;

/**
 * A key for a plain object whose values are all primitives (the same key: the same input, type
 * for type); undefined for anything else, or when it is long (a post's body is not worth keeping).
 */
function flatKey(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  let key = '';
  for (const name of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[name];
    let part: string;
    if (typeof field === 'string') part = `s${JSON.stringify(field)}`;
    else if (typeof field === 'number') part = `n${Object.is(field, -0) ? '-0' : String(field)}`;
    else if (typeof field === 'boolean') part = `b${field}`;
    else if (field === null) part = 'z';
    else if (field === undefined) part = 'u';
    else return undefined;
    key += `${JSON.stringify(name)}:${part},`;
    if (key.length > MAX_FLAT_KEY) return undefined;
  }
  return key;
}

/** A validated instance of primitives (and arrays of them, e.g. a split list): copied for each caller. */
function isCopyable(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every(
    (field) => typeof field !== 'object' || field === null || (Array.isArray(field) && field.every((item) => typeof item !== 'object' || item === null)),
  );
}

/** A copy with the same class, so that no caller can change what another one receives. */
function copyOf(value: object): object {
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as Record<string, unknown>;
  for (const [name, field] of Object.entries(value)) copy[name] = Array.isArray(field) ? [...field] : field;
  return copy;
}

const MAX_NESTING = 32;

/** Whether objects and arrays nest deeper than `limit` (walked without recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

const CONTEXT = Symbol('validation context');

/**
 * What the application gave its validation pipe (its ResourceCatalog), for a validator of the
 * input being validated (`args.object`): a DTO's rules that depend on the application (the
 * event types a webhook may ask for) read it here, not from module state. Undefined when none.
 */
export function validationContext<T extends object>(object: object): T | undefined {
  return (object as { [CONTEXT]?: T })[CONTEXT];
}

/**
 * Request bodies and queries: unknown fields are refused, types are not coerced. `context`: what
 * validators may read of the application (validationContext).
 */
export function createValidationPipe(context?: object): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    stopAtFirstError: true,
    exceptionFactory: (errors) => {
      const fieldErrors = flatten(errors);
      return DomainError.badInput(
        fieldErrors.map((error) => error.message).join('; ') || 'Invalid input',
        fieldErrors,
      );
    },
  }, context);
}

/** A path id: a positive 32-bit integer written in plain digits, else 400. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const id = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
    if (!(id <= MAX_INT32)) {
      const field = metadata.data ?? 'id';
      throw DomainError.badInput(`${field} must be a positive integer`, [
        { field, message: 'must be a positive integer' },
      ]);
    }
    return id;
  }
}
