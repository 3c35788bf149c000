import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { SchemaObject } from './schemas.js';
import { ERROR_CODES } from '../errors/error-code.js';
import { PROBLEM_SCHEMA } from './schemas.js';

const REPRESENTATIONS = ['application/json', 'application/hal+json', 'application/xml', 'text/html'];

function representationContent(schema: SchemaObject) {
  return Object.fromEntries(
    REPRESENTATIONS.map((type) => [type, type.includes('json') ? { schema } : { schema: { type: 'string' } }]),
  );
}

const STATUS_TEXT = Object.fromEntries(Object.values(ERROR_CODES).map(({ status, title }) => [status, title]));

/** problem+json responses for the given statuses. */
export const ApiProblems = (...statuses: number[]) =>
  applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: STATUS_TEXT[status] ?? 'Error',
        content: { 'application/problem+json': { schema: PROBLEM_SCHEMA } },
      }),
    ),
  );

/** A GET of one resource: negotiated formats, ETag, 304, and its errors. */
export const ApiGetOne = (schema: SchemaObject) =>
  applyDecorators(
    ApiHeader({ name: 'If-None-Match', required: false, description: 'An ETag from an earlier GET; 304 if unchanged' }),
    ApiResponse({ status: 200, description: 'The resource (ETag header set)', content: representationContent(schema) }),
    ApiResponse({ status: 304, description: 'Not modified' }),
    ApiProblems(400, 404, 406, 429),
  );

/** A GET of a list: keyset paging with limit and cursor, Link rel="next". */
export const ApiGetList = (schema: SchemaObject) =>
  applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } }),
    ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' }, description: 'From the Link rel="next" of the previous page' }),
    ApiResponse({
      status: 200,
      description: 'A page of the list; `Link: <...>; rel="next"` when more exist',
      content: representationContent({ type: 'array', items: schema }),
    }),
    ApiProblems(400, 404, 406, 429),
  );

/** A write that needs a bearer token. */
export const ApiWrite = (status: number, description: string, schema?: SchemaObject, ...problems: number[]) =>
  applyDecorators(
    ApiBearerAuth(),
    ApiResponse(schema ? { status, description, content: { 'application/json': { schema } } } : { status, description }),
    ApiProblems(400, 401, 403, 404, 413, 415, 429, ...problems),
  );

export const ApiIfMatch = () =>
  ApiHeader({ name: 'If-Match', required: false, description: 'The ETag you last read; 412 if the resource changed since' });
