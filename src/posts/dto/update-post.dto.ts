import { IsOptional, IsString, Length } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';

export class UpdatePostDto {
  @Length(1, 200, { message: 'title must be 1-200 characters (after trimming)' })
  @IsString()
  @IsOptional()
  @Trim()
  title?: string;

  @Length(1, 100_000, { message: 'body must be 1-100000 characters' })
  @IsString()
  @IsOptional()
  body?: string;
}
