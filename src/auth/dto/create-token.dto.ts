import { IsDefined, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';
import { REQUIRED } from '../../users/dto/create-user.dto.js';

export class CreateTokenDto {
  @MaxLength(320)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  email: string;

  @MaxLength(128)
  @IsString()
  @IsDefined(REQUIRED)
  password: string;
}
