import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { POST_STATUSES, type PostStatus } from '../../auth/read-policy.js';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

const STATUS_MESSAGE = { message: 'status must be "draft", "scheduled", "published" or "trashed"' };

/** `?status=`: the non-public posts of a state the caller may see (signed in), or the public list (`published`, the default). */
export class PostStatusQuery extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'string',
    enum: [...POST_STATUSES],
    description: 'draft, scheduled or trashed: those of your posts (admins: everyone\'s) in that state, newest first; signed in only (401). Default: the public posts',
  })
  @IsIn(POST_STATUSES, STATUS_MESSAGE)
  @IsOptional()
  status?: PostStatus;
}

export class ListPostsQuery extends PostStatusQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Only this author\'s posts' })
  @Max(MAX_INT32, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @Transform(toInteger)
  @IsOptional()
  authorId?: number;
}
