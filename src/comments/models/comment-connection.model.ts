import { ArgsType, Field, ObjectType } from '@nestjs/graphql';
import { IsIn, IsOptional } from 'class-validator';
import { COMMENT_STATUSES, type CommentStatus } from '../../auth/read-policy.js';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { Comment } from '../comment.entity.js';
import { COMMENT_STATUS_MESSAGE } from '../dto/moderate-comment.dto.js';
import { GraphQLCommentStatus } from './comment-status.enum.js';

/** The moderation queue: a page of comments of one status, oldest first. `totalCount` is counted only when selected. */
@ObjectType('CommentConnection', { description: 'A page of comments of one status, oldest first (the moderation queue)' })
export class CommentConnection extends ConnectionType(Comment, 'Comment') {
  /** Not a field: the queue's status, that totalCount counts. */
  status: CommentStatus;
}

/** Query.comments(status, first, after). */
@ArgsType()
export class ModerationQueueArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;

  @Field(() => GraphQLCommentStatus, { nullable: true, description: 'The comments of this status (default PENDING)' })
  @IsIn(COMMENT_STATUSES, COMMENT_STATUS_MESSAGE)
  @IsOptional()
  status?: CommentStatus | null;
}
