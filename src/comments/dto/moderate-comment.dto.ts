import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional } from 'class-validator';
import { COMMENT_STATUSES, type CommentStatus } from '../../auth/read-policy.js';
import { PageQueryDto } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { REQUIRED } from '../../common/validation/transforms.js';

export const COMMENT_STATUS_MESSAGE = { message: 'status must be "approved", "pending", "spam" or "hidden"' };

/** At most this many comments in one `PATCH /comments` (or `moderateComments`). */
export const MAX_MODERATED = 100;

/** The queue a moderator sees when they name no status. */
export const DEFAULT_QUEUE_STATUS: CommentStatus = 'pending';

/** `GET /comments?status=`: the moderation queue of one status (default: pending). */
export class ModerationQueueQuery extends PageQueryDto {
  @ApiPropertyOptional({ type: 'string', enum: [...COMMENT_STATUSES], default: DEFAULT_QUEUE_STATUS, description: 'The comments of this status, oldest first (default: pending)' })
  @IsIn(COMMENT_STATUSES, COMMENT_STATUS_MESSAGE)
  @IsOptional()
  status?: CommentStatus;
}

/** One item of the body of `PATCH /comments` (a JSON array of 1-100 of them; documentation only: the service checks the array). */
export class ModerateCommentItemDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_INT32, example: 7, description: "The comment's id" })
  @IsDefined(REQUIRED)
  id: number;

  @ApiProperty({ type: 'string', enum: [...COMMENT_STATUSES], example: 'approved', description: 'Its new status' })
  @IsIn(COMMENT_STATUSES, COMMENT_STATUS_MESSAGE)
  @IsDefined(REQUIRED)
  status: CommentStatus;
}
