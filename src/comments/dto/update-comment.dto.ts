import { Field, InputType } from '@nestjs/graphql';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { ApiAtLeastOneMember } from '../../common/openapi/api-docs.decorators.js';
import { IsIn, IsOptional } from 'class-validator';
import { COMMENT_STATUSES, type CommentStatus } from '../../auth/read-policy.js';
import { PartialInputType } from '../../common/validation/partial-input.js';
import { GraphQLCommentStatus } from '../models/comment-status.enum.js';
import { CommentTextDto } from './create-comment.dto.js';
import { COMMENT_STATUS_MESSAGE } from './moderate-comment.dto.js';

/**
 * The body of PATCH /comments/{id} and GraphQL's UpdateCommentInput: a new text (its author's,
 * under the rules of a new comment's) and/or a new moderation status (moderators, editors and
 * admins); at least one of them.
 */
@InputType('UpdateCommentInput', { description: 'Changes to a comment: only the fields given change' })
@ApiAtLeastOneMember()
export class UpdateCommentDto extends PartialInputType(CommentTextDto, ['body']) {
  @Field(() => GraphQLCommentStatus, { nullable: true, description: 'The new moderation status: moderators, editors and admins only' })
  @ApiPropertyOptional({ type: 'string', enum: [...COMMENT_STATUSES], description: 'The new moderation status: moderators, editors and admins only (403 for others)' })
  @IsIn(COMMENT_STATUSES, COMMENT_STATUS_MESSAGE)
  @IsOptional()
  status?: CommentStatus;
}
