import { HttpException } from '@nestjs/common';
import { DomainError, type FieldError } from './domain-error.js';
import { codeForStatus, ERROR_CODES, type ErrorCode } from './error-code.js';

/** What every transport needs to know about a failure, whatever threw it. */
export interface NormalizedError {
  code: ErrorCode;
  status: number;
  title: string;
  detail: string;
  fieldErrors?: FieldError[];
  headers?: Record<string, string>;
  /** True when the cause is a bug or an outage, not the client's input: log it. */
  unexpected: boolean;
}

const DB_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', 'SQLITE_BUSY',
]);
const DB_UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
  'database is locked',
  // node-postgres's query_timeout: the server stopped answering (a network partition).
  'Query read timeout',
];

function isDatabaseUnavailable(error: { code?: unknown; message?: unknown; driverError?: unknown }): boolean {
  const driverError = (error.driverError ?? error) as { code?: unknown; message?: unknown };
  if (typeof driverError.code === 'string' && DB_UNAVAILABLE_CODES.has(driverError.code)) return true;
  const message = typeof driverError.message === 'string' ? driverError.message : '';
  return DB_UNAVAILABLE_MESSAGES.some((text) => message.includes(text));
}

function isUniqueViolation(error: { code?: unknown; driverError?: unknown }): boolean {
  const code = (error.driverError as { code?: unknown } | undefined)?.code ?? error.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** A row refers to one that a concurrent transaction has just deleted (a post, a user). */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { code?: unknown; driverError?: unknown };
  const code = (candidate.driverError as { code?: unknown } | undefined)?.code ?? candidate.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

function fromCode(code: ErrorCode, detail: string, extra: Partial<NormalizedError> = {}): NormalizedError {
  const { status, title } = ERROR_CODES[code];
  return { code, status, title, detail, unexpected: status >= 500, ...extra };
}

function httpExceptionDetail(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/** Maps anything thrown while serving a request to one shape; internals never reach `detail`. */
export function normalizeError(error: unknown): NormalizedError {
  if (error instanceof DomainError) {
    return fromCode(error.code, error.message, { fieldErrors: error.fieldErrors, headers: error.headers });
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const code = codeForStatus(status);
    const detail = status >= 500 ? ERROR_CODES[code].title : httpExceptionDetail(error);
    return fromCode(code, detail, { status, title: ERROR_CODES[code]?.title ?? 'Error' });
  }
  if (typeof error === 'object' && error !== null) {
    const candidate = error as { statusCode?: unknown; status?: unknown; code?: unknown; message?: unknown };
    // Fastify's own errors (body parser, content type, body size) carry a 4xx statusCode.
    const status = typeof candidate.statusCode === 'number' ? candidate.statusCode : undefined;
    if (status !== undefined && status >= 400 && status < 500) {
      const code = codeForStatus(status);
      const detail = typeof candidate.message === 'string' ? fastifyDetail(candidate.code, candidate.message) : '';
      return fromCode(code, detail, { status, title: ERROR_CODES[code]?.title ?? 'Error' });
    }
    if (isUniqueViolation(candidate)) return fromCode('CONFLICT', 'The resource conflicts with an existing one');
    if (isForeignKeyViolation(candidate)) return fromCode('CONFLICT', 'A resource this one refers to was deleted meanwhile');
    if (isDatabaseUnavailable(candidate)) {
      return fromCode('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly', {
        headers: { 'retry-after': '5' },
      });
    }
  }
  return fromCode('INTERNAL_SERVER_ERROR', 'An unexpected error occurred');
}

const FASTIFY_DETAILS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is larger than the limit',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The request body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but Content-Type says JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
  FST_ERR_BAD_URL: 'The request URL is not valid (a malformed percent-encoding)',
  FST_ERR_MAX_PARAM_LENGTH: 'A path segment is longer than the limit',
};

function fastifyDetail(code: unknown, message: string): string {
  if (typeof code === 'string' && FASTIFY_DETAILS[code]) return FASTIFY_DETAILS[code];
  // JSON.parse errors: keep the position, drop anything else.
  if (message.startsWith('Body is not valid JSON') || message.includes('JSON')) {
    return 'The request body is not valid JSON';
  }
  return message;
}
