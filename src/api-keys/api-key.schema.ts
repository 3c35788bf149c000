import type { SchemaObject } from '../common/openapi/schemas.js';

const date = (nullable: boolean): SchemaObject => ({ type: 'string', format: 'date-time', ...(nullable ? { nullable: true } : {}) });

/** An API key as its owner sees it (ApiKeyView): GET /users/{id}/api-keys, and their personal-data export. */
export const API_KEY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    scopes: { type: 'array', items: { type: 'string', enum: ['read', 'write'] } },
    createdAt: date(false),
    expiresAt: date(true),
    lastUsedAt: date(true),
  },
  required: ['id', 'name', 'scopes', 'createdAt', 'expiresAt', 'lastUsedAt'],
  additionalProperties: false,
};
