import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

export class ListPostsQuery extends PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Only this author\'s posts' })
  @Max(MAX_INT32, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @Transform(toInteger)
  @IsOptional()
  authorId?: number;
}
