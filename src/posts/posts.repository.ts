import { Injectable } from '@nestjs/common';
import { type Join, ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import type { User } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { Post } from './post.entity.js';

@Injectable()
export class PostsRepository extends ResourceRepository<Post> {
  /** A post's author, joined into its row (`post.author`). */
  readonly withAuthor: Join<Post, User>;

  constructor(sql: Sql, users: UsersRepository) {
    super(sql, Post);
    this.withAuthor = { property: 'author', table: users.table, foreignKey: 'authorId' };
  }

  /** The comments that deleting this post takes with it (the foreign key cascades), for their deletion events. */
  async cascadedComments(postId: number, executor: Executor): Promise<{ id: number; postId: number; authorId: number }[]> {
    const statement = this.cached('cascadeComments', () => 'SELECT id, author_id FROM comments WHERE post_id = $1');
    const rows = await this.sql.rows<{ id: number; author_id: number }>(statement, [postId], executor);
    return rows.map((row) => ({ id: row.id, postId, authorId: row.author_id }));
  }
}
