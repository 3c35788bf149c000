import { type ArgumentMetadata, Injectable, type PipeTransform, ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { DomainError, type FieldError } from '../errors/domain-error.js';

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

const MAX_ID = 2_147_483_647;

/** A path id: a positive 32-bit integer written in plain digits, else 400. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, metadata: ArgumentMetadata): number {
    const id = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
    if (!(id <= MAX_ID)) {
      const field = metadata.data ?? 'id';
      throw DomainError.badInput(`${field} must be a positive integer`, [
        { field, message: 'must be a positive integer' },
      ]);
    }
    return id;
  }
}
