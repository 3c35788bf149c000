import { IsDefined, IsEmail, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { Trim } from '../../common/validation/transforms.js';

// Decorators run bottom-up and the first failure is reported: presence, then type, then size.
export const REQUIRED = { message: '$property is required' };
export const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
export const AVATAR_URL_MESSAGE = { message: 'avatarUrl must be an http(s) URL of at most 2048 characters' };

export class CreateUserDto {
  @Length(1, 100)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  name: string;

  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(320)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  email: string;

  @Length(8, 128)
  @IsString()
  @IsDefined(REQUIRED)
  password: string;

  @IsUrl(HTTP_URL, AVATAR_URL_MESSAGE)
  @MaxLength(2048, AVATAR_URL_MESSAGE)
  @IsString()
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  avatarUrl?: string | null;
}
