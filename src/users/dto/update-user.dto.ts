import { Field, InputType } from '@nestjs/graphql';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsString, MaxLength, ValidateIf } from 'class-validator';
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

  /** Only for those with users.setRole (admins); the service enforces it. */
  @Field(() => GraphQLRole, { nullable: true, description: 'A new role; admins only' })
  @ApiPropertyOptional({ enum: [...USER_ROLES], description: 'Admins only' })
  @IsIn(USER_ROLES, { message: `role must be one of ${USER_ROLES.map((role) => `"${role}"`).join(', ')}` })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  role?: UserRole;

  /** Only for those with users.blockCommenters (moderators, editors, admins), never for oneself alone; the service enforces it. */
  @Field(() => Boolean, { nullable: true, description: "true: the user's new comments are refused (403 COMMENTS_BLOCKED); false: allowed again. Moderators, editors and admins" })
  @ApiPropertyOptional({ type: 'boolean', description: "true: the user's new comments are refused (403 COMMENTS_BLOCKED). Moderators, editors and admins" })
  @IsBoolean({ message: 'commentsBlocked must be true or false' })
  @ValidateIf(OMITTED_OR_NOT_NULL)
  commentsBlocked?: boolean;
}
