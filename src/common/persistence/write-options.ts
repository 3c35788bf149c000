import { DomainError } from '../errors/domain-error.js';

export interface WriteOptions {
  /** The version the client last saw (from If-Match); the write fails with 412 if it moved on. */
  expectedVersion?: number;
}

export function preconditionFailed(): DomainError {
  return new DomainError('PRECONDITION_FAILED', 'The resource has changed since you read it (If-Match failed)');
}
