import type { ApiResponseOptions } from '@nestjs/swagger';

type ResponseContent = NonNullable<Extract<ApiResponseOptions, { content?: unknown }>['content']>;
export type SchemaObject = Exclude<NonNullable<ResponseContent[string]['schema']>, { $ref: string }>;

/** JSON schemas of what is not a resource (a resource's schema derives from its entity: ResourceDefinition.schema). */
export const TOKEN_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    accessToken: { type: 'string' },
    tokenType: { type: 'string', enum: ['Bearer'] },
    expiresIn: { type: 'integer', example: 3600 },
  },
  required: ['accessToken', 'tokenType', 'expiresIn'],
};

export const PROBLEM_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    type: { type: 'string', example: '/problems/not-found' },
    title: { type: 'string', example: 'Not Found' },
    status: { type: 'integer', example: 404 },
    detail: { type: 'string' },
    instance: { type: 'string', example: '/posts/99' },
    code: { type: 'string', example: 'NOT_FOUND' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'instance'],
};
