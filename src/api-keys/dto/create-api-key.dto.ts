import { Field, GraphQLISODateTime, InputType } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsDefined, IsIn, IsOptional, IsString, Length, MaxLength, ValidateIf } from 'class-validator';
import { Transform } from 'class-transformer';
import { SCOPES, type Scope } from '../../common/actor.js';
import { DATE_TIME_PATTERN, IsDateTime, MaxChars, NOT_BLANK_PATTERN, OMITTED_OR_NOT_NULL, REQUIRED, toDate, Trim } from '../../common/validation/transforms.js';

const SCOPES_MESSAGE = { message: 'scopes must be a non-empty list of "read" and "write", each at most once' };

/** The body of POST /users/{id}/api-keys and GraphQL's CreateApiKeyInput. */
@InputType('CreateApiKeyInput', { description: 'A new API key: its name, what it may do, and when it stops working' })
export class CreateApiKeyDto {
  @Field(() => String, { description: 'What the key is for (1-100 characters, trimmed)' })
  @ApiProperty({ minLength: 1, maxLength: 100, pattern: NOT_BLANK_PATTERN, example: 'Nightly export' })
  @MaxChars(100)
  @Length(1, 100, { message: 'name must be 1-100 characters (after trimming)' })
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  name: string;

  @Field(() => [String], { description: '"read" (what anyone may read, plus `me` and your keys) and/or "write" (act as you)' })
  @ApiProperty({ type: 'array', items: { type: 'string', enum: [...SCOPES] }, minItems: 1, maxItems: 2, uniqueItems: true, example: ['read'] })
  @IsIn(SCOPES, { each: true, ...SCOPES_MESSAGE })
  @ArrayUnique(undefined, SCOPES_MESSAGE)
  @ArrayMaxSize(2, SCOPES_MESSAGE)
  @ArrayNotEmpty(SCOPES_MESSAGE)
  @IsArray(SCOPES_MESSAGE)
  @IsDefined(REQUIRED)
  scopes: Scope[];

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When the key stops working (in the future); none: never' })
  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    pattern: DATE_TIME_PATTERN,
    nullable: true,
    description: 'When the key stops working; must be in the future. RFC 3339 with seconds and an upper-case T, and Z or an offset: 2030-01-01T00:00:00Z. None: never',
  })
  @IsDateTime({ message: 'expiresAt must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z' })
  @IsOptional()
  @Transform(toDate)
  expiresAt?: Date | null;

  /** Proof of presence when the token is 5 minutes old or more (checked by the service). */
  @Field(() => String, {
    nullable: true,
    description: "Your current password: needed unless your token is less than 5 minutes old (an admin creating a key for someone else gives their own)",
  })
  @ApiPropertyOptional({
    maxLength: 128,
    format: 'password',
    writeOnly: true,
    description:
      'Your current password: needed unless your bearer token is less than 5 minutes old (400 without it, 403 when wrong; wrong ones count as failed sign-ins). ' +
      'An admin creating a key for someone else gives their own',
  })
  @MaxLength(128)
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  currentPassword?: string;
}
