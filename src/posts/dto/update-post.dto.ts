import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';

export class UpdatePostDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @Length(1, 200, { message: 'title must be 1-200 characters (after trimming)' })
  @IsString()
  @IsOptional()
  @Trim()
  title?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100000 })
  @Length(1, 100_000, { message: 'body must be 1-100000 characters' })
  @IsString()
  @IsOptional()
  body?: string;
}
