import { ApiKey } from './api-keys/api-key.entity.js';
import { AuditEntry } from './audit/audit-entry.entity.js';
import type { ResourceList } from './common/resource/resource-catalog.js';
import { COMMENT_RESOURCE } from './comments/comment.resource.js';
import { MEDIA_RESOURCE } from './media/media.resource.js';
import { POST_RESOURCE } from './posts/post.resource.js';
import { REVISION_RESOURCE } from './posts/post-revision.resource.js';
import { REVIEW_RESOURCE } from './posts/post-review.resource.js';
import { TAG_RESOURCE } from './tags/tag.resource.js';
import { USER_RESOURCE } from './users/user.resource.js';
import { Webhook } from './webhooks/webhook.entity.js';

/**
 * Every resource of the service, and the tables that are no resource: what AppModule.forRoot
 * passes down (the database's entities, the event log's vocabulary, webhooks, OpenAPI, GraphQL).
 * The order is the order of the event types and refs everywhere (GraphQL, OpenAPI, the outbox's
 * columns). A new resource is one line here (and its own migration).
 */
export const RESOURCES: ResourceList = {
  // Each of its own entity: the catalog holds them as resources of any entity.
  resources: [TAG_RESOURCE, USER_RESOURCE, POST_RESOURCE, REVISION_RESOURCE, REVIEW_RESOURCE, COMMENT_RESOURCE, MEDIA_RESOURCE] as unknown as ResourceList['resources'],
  tables: [ApiKey, Webhook, AuditEntry],
};
