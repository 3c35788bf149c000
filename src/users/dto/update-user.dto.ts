import { Field, InputType } from '@nestjs/graphql';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { MaxChars, OMITTED_OR_NOT_NULL, Trim } from '../../common/validation/transforms.js';
import { GraphQLRole } from '../models/role.enum.js';
import { USER_ROLES, type UserRole } from '../user.entity.js';
import { AVATAR_URL_MESSAGE, HTTP_URL } from './create-user.dto.js';

/** The body of PATCH /users/{id} and GraphQL's UpdateUserInput. */
@InputType('UpdateUserInput', { description: 'Changes to a user: only the fields given change' })
export class UpdateUserDto {
  @Field(() => String, { nullable: true, description: 'A new name (1-100 characters, trimmed)' })
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @MaxChars(100)
  @Length(1, 100)
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  @Trim()
  name?: string;

  /** null removes the avatar. */
  @Field(() => String, { nullable: true, description: 'null removes the avatar' })
  @ApiPropertyOptional({ type: 'string', format: 'uri', maxLength: 2048, nullable: true, description: 'null removes the avatar' })
  @MaxChars(2048, AVATAR_URL_MESSAGE)
  @IsUrl(HTTP_URL, AVATAR_URL_MESSAGE)
  @MaxLength(2048, AVATAR_URL_MESSAGE)
  @IsString()
  @ValidateIf((_, value) => value !== null)
  @IsOptional()
  avatarUrl?: string | null;

  @Field(() => String, { nullable: true, description: 'A new password (8-128 characters); tokens issued before are refused from then on' })
  @ApiPropertyOptional({ minLength: 8, maxLength: 128, format: 'password' })
  @Length(8, 128)
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  password?: string;

  /** Needed to change one's own password (not when an admin changes someone else's). */
  @Field(() => String, { nullable: true, description: 'Your current password: needed to change your own password' })
  @ApiPropertyOptional({ maxLength: 128, format: 'password', description: 'Needed to change your own password' })
  @MaxLength(128)
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  currentPassword?: string;

  /** Admins only; the service enforces it. */
  @Field(() => GraphQLRole, { nullable: true, description: 'A new role; admins only' })
  @ApiPropertyOptional({ enum: ['admin', 'author'], description: 'Admins only' })
  @IsIn(USER_ROLES, { message: 'role must be "admin" or "author"' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  role?: UserRole;
}
