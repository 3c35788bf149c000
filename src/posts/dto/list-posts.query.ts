import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { PageQueryDto, toInteger } from '../../common/pagination/cursor.js';

export class ListPostsQuery extends PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'Only this author\'s posts' })
  @Max(2_147_483_647, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @Transform(toInteger)
  @IsOptional()
  authorId?: number;
}
