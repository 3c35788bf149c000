import { toDate } from '../common/persistence/sql.js';
import { Post } from './post.entity.js';

export const POST_COLUMNS = 'p.id, p.title, p.body, p.author_id, p.created_at, p.updated_at, p.version';

export interface PostRow {
  id: number;
  title: string;
  body: string;
  author_id: number;
  created_at: unknown;
  updated_at: unknown;
  version: number;
}

export function postFromRow(row: PostRow): Post {
  const post = new Post();
  post.id = row.id;
  post.title = row.title;
  post.body = row.body;
  post.authorId = row.author_id;
  post.createdAt = toDate(row.created_at);
  post.updatedAt = toDate(row.updated_at);
  post.version = row.version;
  return post;
}
