import { Field, InputType } from '@nestjs/graphql';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength, ValidateIf } from 'class-validator';
import { PartialInputType } from '../../common/validation/partial-input.js';
import { OMITTED_OR_NOT_NULL } from '../../common/validation/transforms.js';
import { GraphQLRole } from '../models/role.enum.js';
import { USER_ROLES, type UserRole } from '../user.entity.js';
import { CreateUserDto } from './create-user.dto.js';

/**
 * The body of PATCH /users/{id} and GraphQL's UpdateUserInput: a new user's name, avatar and
 * password, each optional (null removes the avatar), and what only a change needs.
 */
@InputType('UpdateUserInput', { description: 'Changes to a user: only the fields given change; a new password refuses the tokens issued and API keys created before it' })
export class UpdateUserDto extends PartialInputType(CreateUserDto, ['name', 'avatarUrl', 'password']) {
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
