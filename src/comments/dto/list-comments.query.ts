import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

/** The query of GET /posts/{id}/comments: a page, and optionally one comment's replies only. */
export class ListCommentsQuery extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_INT32,
    description: "Only this comment's replies (a comment of this post the caller sees; 404 otherwise)",
  })
  @Max(MAX_INT32, { message: 'parentId must be a positive integer' })
  @Min(1, { message: 'parentId must be a positive integer' })
  @IsInt({ message: 'parentId must be a positive integer' })
  @Transform(toInteger)
  @IsOptional()
  parentId?: number;
}
