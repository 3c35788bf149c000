import { type ArgumentMetadata, Injectable, type PipeTransform, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { DomainError, type FieldError } from '../errors/domain-error.js';
import { findStringProblem, stringProblem } from './well-formed.js';
import { MAX_INT32 } from './limits.js';

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
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }

  /**
   * Before any other check, every string (and key) of the input is refused when it holds a NUL
   * character (PostgreSQL cannot store it in text) or a lone surrogate (no encoding carries it,
   * and class-validator's isEmail throws on it): 400, naming the field.
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // `custom` parameters (the GraphQL context, root, info) are the server's own objects, not input:
    // never walked (their object graphs have cycles) nor validated, as the stock pipe does.
    if (metadata.type === 'custom') return super.transform(value, metadata);
    // No body at all (none sent, or an empty one under a JSON Content-Type) where a route reads the
    // whole of it. GraphQL arguments come as `body` too, but a named one (`@Args('filter')`) may be
    // absent and the whole set (`@Args()`) is always an object.
    if (metadata.type === 'body' && metadata.data === undefined && value === undefined) {
      throw DomainError.badInput('The request needs a JSON body', [{ field: 'body', message: 'is required' }]);
    }
    // class-transformer recurses without a bound: a body nested 10,000 deep overflowed the stack (500).
    if (nestedDeeperThan(value, MAX_NESTING)) {
      const name = metadata.data || metadata.type;
      throw DomainError.badInput(`${name} is nested more than ${MAX_NESTING} levels deep`, [
        { field: name, message: `must not nest more than ${MAX_NESTING} levels deep` },
      ]);
    }
    const problem = findStringProblem(value, (text) => stringProblem(text, true), metadata.data ?? '');
    if (problem !== undefined) {
      const name = problem.field || metadata.type;
      throw DomainError.badInput(`${name} ${problem.message}`, [{ field: name, message: problem.message }]);
    }
    return super.transform(value, metadata);
  }
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

/** Request bodies and queries: unknown fields are refused, types are not coerced. */
export function createValidationPipe(): ValidationPipe {
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
  });
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
