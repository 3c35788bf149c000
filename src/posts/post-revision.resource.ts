import { defineResource } from '../common/resource/resource-definition.js';
import { POST_STATUSES } from '../auth/read-policy.js';
import { PostRevision } from './post-revision.entity.js';

/** A post's revisions: `/posts/{postId}/revisions/{number}`, for its author and admins. */
export const REVISION_RESOURCE = defineResource({
  kind: 'revision',
  plural: 'revisions',
  entity: PostRevision,
  fieldSchemas: { status: { type: 'string', enum: [...POST_STATUSES] } },
  links: (revision: PostRevision) => ({
    self: { href: `/posts/${revision.postId}/revisions/${revision.number}` },
    post: { href: `/posts/${revision.postId}` },
  }),
});
