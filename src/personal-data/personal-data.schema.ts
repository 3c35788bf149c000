import { API_KEY_SCHEMA } from '../api-keys/api-key.schema.js';
import { COMMENT_RESOURCE } from '../comments/comment.resource.js';
import { MEDIA_RESOURCE } from '../media/media.resource.js';
import { schemaRef, type SchemaObject } from '../common/openapi/schemas.js';
import { REVISION_RESOURCE } from '../posts/post-revision.resource.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { USER_RESOURCE } from '../users/user.resource.js';

const array = (items: SchemaObject | ReturnType<typeof schemaRef>): SchemaObject => ({ type: 'array', items });

/** A post as its author reads it, with every one of its revisions. */
function exportedPost(): SchemaObject {
  const post = POST_RESOURCE.schema;
  return {
    ...post,
    properties: { ...post.properties, revisions: { ...array(schemaRef('Revision', REVISION_RESOURCE.schema)), description: 'Every revision, oldest first' } },
    required: [...(post.required ?? []), 'revisions'],
  };
}

/** The document of GET /users/{id}/export: each item as its own resource shows it to its owner. */
export function personalDataSchema(): SchemaObject {
  return {
    type: 'object',
    properties: {
      user: schemaRef('User', USER_RESOURCE.schema),
      posts: { ...array(schemaRef('ExportedPost', exportedPost())), description: 'Every post they wrote, in every state (drafts, scheduled, trashed), oldest first' },
      comments: { ...array(schemaRef('Comment', COMMENT_RESOURCE.schema)), description: 'Every comment they wrote, whatever its status, oldest first' },
      media: { ...array(schemaRef('Media', MEDIA_RESOURCE.schema)), description: 'The metadata of every media item they uploaded (no file bytes), oldest first' },
      apiKeys: { ...array(schemaRef('ApiKey', API_KEY_SCHEMA)), description: 'Their API keys in force, without the keys' },
      externalIdentities: {
        ...array({
          type: 'object',
          properties: { id: { type: 'integer' }, issuer: { type: 'string' }, subject: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
          required: ['id', 'issuer', 'subject', 'createdAt'],
          additionalProperties: false,
        }),
        description: 'The single sign-on identities linked to the account',
      },
      auditEntries: { ...array({ type: 'object' }), description: 'The audit entries whose actor or resource is the user (CONTRACT §16), oldest first: `{id, at, actor: {userId, credential, keyId?}, action, resource: {type, id}, changes, ip, userAgent, requestId, traceId}`' },
    },
    required: ['user', 'posts', 'comments', 'media', 'apiKeys', 'externalIdentities', 'auditEntries'],
    additionalProperties: false,
  };
}
