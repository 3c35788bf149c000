import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';
import { USER_ROLES, type UserRole } from '../user.entity.js';
import { AVATAR_URL_MESSAGE, HTTP_URL } from './create-user.dto.js';

export class UpdateUserDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @Length(1, 100)
  @IsString()
  @IsOptional()
  @Trim()
  name?: string;

  /** null removes the avatar. */
  @ApiPropertyOptional({ format: 'uri', maxLength: 2048, nullable: true, description: 'null removes the avatar' })
  @IsUrl(HTTP_URL, AVATAR_URL_MESSAGE)
  @MaxLength(2048, AVATAR_URL_MESSAGE)
  @IsString()
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  avatarUrl?: string | null;

  @ApiPropertyOptional({ minLength: 8, maxLength: 128, format: 'password' })
  @Length(8, 128)
  @IsString()
  @IsOptional()
  password?: string;

  /** Admins only; the service enforces it. */
  @ApiPropertyOptional({ enum: ['admin', 'author'], description: 'Admins only' })
  @IsIn(USER_ROLES, { message: 'role must be "admin" or "author"' })
  @IsOptional()
  role?: UserRole;
}
