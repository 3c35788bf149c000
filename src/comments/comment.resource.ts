import { COMMENT_STATUSES } from '../auth/read-policy.js';
import { defineResource } from '../common/resource/resource-definition.js';
import { Comment } from './comment.entity.js';

export const COMMENT_RESOURCE = defineResource({
  kind: 'comment',
  plural: 'comments',
  entity: Comment,
  links: (comment: Comment) => ({
    post: { href: `/posts/${comment.postId}` },
    author: { href: `/users/${comment.authorId}` },
    ...(comment.parentId === null || comment.parentId === undefined ? {} : { parent: { href: `/comments/${comment.parentId}` } }),
    replies: { href: `/posts/${comment.postId}/comments?parentId=${comment.id}` },
  }),
  optionalLinks: ['parent'],
  fieldSchemas: { status: { type: 'string', enum: [...COMMENT_STATUSES] } },
  events: { commentCreated: 'A comment was written', commentUpdated: 'A comment was changed', commentDeleted: 'A comment was deleted' },
  eventRefs: { commentId: { field: 'id', description: 'The comment it is about; null for post events' }, postId: 'postId', authorId: 'authorId' },
});

declare module '../events/blog-events.js' {
  interface BlogEvents {
    commentCreated: Comment;
    commentUpdated: Comment;
    commentDeleted: { id: number; postId: number; authorId: number };
  }
}
