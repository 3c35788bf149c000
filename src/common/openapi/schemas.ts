import type { ApiResponseOptions } from '@nestjs/swagger';

type ResponseContent = NonNullable<Extract<ApiResponseOptions, { content?: unknown }>['content']>;
export type SchemaObject = Exclude<NonNullable<ResponseContent[string]['schema']>, { $ref: string }>;

/** JSON schemas of the representations, for the OpenAPI document (the views are plain functions). */
const link: SchemaObject = { type: 'object', properties: { href: { type: 'string', example: '/posts/1' } }, required: ['href'] };
const links = (...rels: string[]): SchemaObject => ({
  type: 'object',
  properties: Object.fromEntries(rels.map((rel) => [rel, link])),
  required: rels,
});
const timestamps = {
  createdAt: { type: 'string', format: 'date-time' },
  updatedAt: { type: 'string', format: 'date-time' },
} as const;

export const USER_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer', example: 2 },
    name: { type: 'string', example: 'Alice Author' },
    email: { type: 'string', format: 'email', example: 'alice@example.com' },
    avatarUrl: { type: 'string', format: 'uri', nullable: true },
    role: { type: 'string', enum: ['admin', 'author'] },
    ...timestamps,
    _links: links('self', 'posts'),
  },
  required: ['id', 'name', 'email', 'avatarUrl', 'role', 'createdAt', 'updatedAt', '_links'],
};

export const POST_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer', example: 1 },
    title: { type: 'string', example: 'Hello' },
    body: { type: 'string', example: 'First post' },
    authorId: { type: 'integer', example: 2 },
    ...timestamps,
    _links: links('self', 'author', 'comments'),
  },
  required: ['id', 'title', 'body', 'authorId', 'createdAt', 'updatedAt', '_links'],
};

export const COMMENT_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer', example: 1 },
    postId: { type: 'integer', example: 1 },
    body: { type: 'string', example: 'Nice post' },
    authorId: { type: 'integer', example: 3 },
    ...timestamps,
    _links: links('self', 'post', 'author'),
  },
  required: ['id', 'postId', 'body', 'authorId', 'createdAt', 'updatedAt', '_links'],
};

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
