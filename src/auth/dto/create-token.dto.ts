import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, MaxLength } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';
import { REQUIRED } from '../../users/dto/create-user.dto.js';

export class CreateTokenDto {
  @ApiProperty({ format: 'email', example: 'alice@example.com' })
  @MaxLength(320)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  email: string;

  @ApiProperty({ format: 'password', example: 'alice-password' })
  @MaxLength(128)
  @IsString()
  @IsDefined(REQUIRED)
  password: string;
}
