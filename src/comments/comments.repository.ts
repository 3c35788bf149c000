import { Injectable } from '@nestjs/common';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { Sql } from '../common/persistence/sql.js';
import { Comment } from './comment.entity.js';

@Injectable()
export class CommentsRepository extends ResourceRepository<Comment> {
  constructor(sql: Sql) {
    super(sql, Comment);
  }
}
