import { Injectable } from '@nestjs/common';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { Post } from './post.entity.js';

@Injectable()
export class PostsRepository extends ResourceRepository<Post> {
  constructor(sql: Sql) {
    super(sql, Post);
  }

  /** The comments that deleting this post takes with it (the foreign key cascades), for their deletion events. */
  async cascadedComments(postId: number, executor: Executor): Promise<{ id: number; postId: number; authorId: number }[]> {
    const statement = this.cached('cascadeComments', () => 'SELECT id, author_id FROM comments WHERE post_id = $1');
    const rows = await this.sql.rows<{ id: number; author_id: number }>(statement, [postId], executor);
    return rows.map((row) => ({ id: row.id, postId, authorId: row.author_id }));
  }
}
