import { toDate } from '../common/persistence/sql.js';
import { Comment } from './comment.entity.js';

export const COMMENT_COLUMNS = 'c.id, c.post_id, c.body, c.author_id, c.created_at, c.updated_at, c.version';

export interface CommentRow {
  id: number;
  post_id: number;
  body: string;
  author_id: number;
  created_at: unknown;
  updated_at: unknown;
  version: number;
}

export function commentFromRow(row: CommentRow): Comment {
  const comment = new Comment();
  comment.id = row.id;
  comment.postId = row.post_id;
  comment.body = row.body;
  comment.authorId = row.author_id;
  comment.createdAt = toDate(row.created_at);
  comment.updatedAt = toDate(row.updated_at);
  comment.version = row.version;
  return comment;
}
