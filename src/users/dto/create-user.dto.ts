import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsEmail, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { MaxChars, NoInvisibleCharacters, NormalizeEmail, NOT_BLANK_PATTERN, REQUIRED, Trim } from '../../common/validation/transforms.js';

// Decorators run bottom-up and the first failure is reported: presence, then type, then size.
const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const AVATAR_URL_MESSAGE = { message: 'avatarUrl must be an http(s) URL of at most 2048 characters, or a media path /media/{id}' };
/** A media item's path as an avatar (CONTRACT §14): checked against the media by UsersService. */
const MEDIA_AVATAR = /^\/media\/[1-9][0-9]{0,9}$/;

/** The body of POST /users and GraphQL's CreateUserInput: one set of rules for both. */
@InputType('CreateUserInput', { description: 'A new user (an author)' })
export class CreateUserDto {
  @Field(() => String, { description: 'The name shown with their posts and comments (1-100 characters, trimmed)' })
  @ApiProperty({ minLength: 1, maxLength: 100, pattern: NOT_BLANK_PATTERN, example: 'Carol Writer' })
  @MaxChars(100)
  @Length(1, 100)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  name: string;

  @Field(() => String, { description: 'The e-mail to sign in with; unique, case-insensitively' })
  @ApiProperty({ format: 'email', maxLength: 320, example: 'carol@example.com', description: 'Unique, case-insensitively; stored NFKC-normalized and lower-cased; control and invisible characters are refused' })
  @MaxChars(320)
  @IsEmail({}, { message: 'email must be a valid e-mail address' })
  @MaxLength(320)
  @NoInvisibleCharacters('email must not contain control or invisible formatting characters')
  @IsString()
  @IsDefined(REQUIRED)
  @NormalizeEmail()
  email: string;

  @Field(() => String, { description: 'The password to sign in with (8-128 characters)' })
  @ApiProperty({ minLength: 8, maxLength: 128, example: 'carol-password', format: 'password' })
  @Length(8, 128)
  @IsString()
  @IsDefined(REQUIRED)
  password: string;

  @Field(() => String, { nullable: true, description: 'An http(s) URL of their picture (at most 2048 characters), or /media/{id} of a media item they may see (it becomes public); null or none: no picture' })
  // `uri` describes the http(s) form; /media/{id}, a relative reference, is in the description (the checks know no media item).
  @ApiPropertyOptional({ type: 'string', format: 'uri', maxLength: 2048, nullable: true, example: 'https://example.com/carol.png', description: 'An http(s) URL, or /media/{id} of a media item the writer may see (it becomes public); null or none: no picture' })
  @MaxChars(2048, AVATAR_URL_MESSAGE)
  @IsUrl(HTTP_URL, AVATAR_URL_MESSAGE)
  @MaxLength(2048, AVATAR_URL_MESSAGE)
  @IsString()
  @ValidateIf((_, value) => !(typeof value === 'string' && MEDIA_AVATAR.test(value)))
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  avatarUrl?: string | null;
}
