import { type Links, postLinks } from '../common/representation/links.js';
import type { Post } from './post.entity.js';

export interface PostView {
  id: number;
  title: string;
  body: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
  _links: Links;
  [field: string]: unknown;
}

export function toPostView(post: Post): PostView {
  return {
    id: post.id,
    title: post.title,
    body: post.body,
    authorId: post.authorId,
    createdAt: post.createdAt.toISOString(),
    updatedAt: post.updatedAt.toISOString(),
    _links: postLinks(post),
  };
}
