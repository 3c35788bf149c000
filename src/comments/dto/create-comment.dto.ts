import { IsDefined, IsString, Length } from 'class-validator';
import { REQUIRED } from '../../users/dto/create-user.dto.js';

export class CreateCommentDto {
  @Length(1, 10_000, { message: 'body must be 1-10000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;
}
