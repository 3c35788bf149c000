import { commentLinks, type Links } from '../common/representation/links.js';
import type { Comment } from './comment.entity.js';

export interface CommentView {
  id: number;
  postId: number;
  body: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
  _links: Links;
  [field: string]: unknown;
}

export function toCommentView(comment: Comment): CommentView {
  return {
    id: comment.id,
    postId: comment.postId,
    body: comment.body,
    authorId: comment.authorId,
    createdAt: comment.createdAt.toISOString(),
    updatedAt: comment.updatedAt.toISOString(),
    _links: commentLinks(comment),
  };
}
