import type { FieldError } from './domain-error.js';
import type { NormalizedError } from './normalize-error.js';

/** RFC 9457 problem details, as every HTTP error body of the service. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function toProblemDetails(error: NormalizedError, instance: string): ProblemDetails {
  const problem: ProblemDetails = {
    type: `/problems/${error.code.toLowerCase().replaceAll('_', '-')}`,
    title: error.title,
    status: error.status,
    detail: error.detail,
    instance,
    code: error.code,
  };
  if (error.fieldErrors && error.fieldErrors.length > 0) problem.errors = error.fieldErrors;
  return problem;
}
