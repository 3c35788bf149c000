import type { ErrorCode } from './error-code.js';

export interface FieldError {
  field: string;
  message: string;
}

/**
 * An error the service means to report to the client. Services throw these; the HTTP filter
 * turns them into problem+json and the GraphQL formatter into `extensions.code`.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fieldErrors?: FieldError[],
    /** Extra response headers, e.g. Retry-After for RATE_LIMITED. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static badInput(message: string, fieldErrors?: FieldError[]): DomainError {
    return new DomainError('BAD_USER_INPUT', message, fieldErrors);
  }

  static notFound(resource: string, id: number | string): DomainError {
    return new DomainError('NOT_FOUND', `${resource} ${id} does not exist`);
  }

  static unauthenticated(message = 'A valid bearer token is required'): DomainError {
    return new DomainError('UNAUTHENTICATED', message);
  }

  static forbidden(message = 'You are not allowed to do this'): DomainError {
    return new DomainError('FORBIDDEN', message);
  }

  static conflict(message: string): DomainError {
    return new DomainError('CONFLICT', message);
  }
}
