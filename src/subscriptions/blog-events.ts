import type { Comment } from '../comments/comment.entity.js';
import type { Post } from '../posts/post.entity.js';

/**
 * Every event the service publishes, with its payload. Names are the GraphQL subscription
 * fields; payloads are the resource (or, for deletions, what identifies it and its filters).
 */
export interface BlogEvents {
  postCreated: Post;
  postUpdated: Post;
  postDeleted: { id: number; authorId: number };
  commentCreated: Comment;
  commentUpdated: Comment;
  commentDeleted: { id: number; postId: number; authorId: number };
}

export type BlogEventName = keyof BlogEvents;

export const BLOG_EVENT_NAMES: BlogEventName[] = [
  'postCreated', 'postUpdated', 'postDeleted', 'commentCreated', 'commentUpdated', 'commentDeleted',
];

export interface BlogEvent<K extends BlogEventName = BlogEventName> {
  name: K;
  payload: BlogEvents[K];
}

export function event<K extends BlogEventName>(name: K, payload: BlogEvents[K]): BlogEvent<K> {
  return { name, payload };
}

/**
 * Not a subscription field: said on the bus whenever what a user's credentials grant may have
 * changed (deleted, role or password changed, tokens revoked), so every instance can look again
 * at what it holds for that user (open sockets and streams, cached credential checks).
 */
export const CREDENTIALS_CHANGED = 'credentialsChanged';

export interface CredentialsChanged {
  userId: number;
}
