import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { MaxChars, REQUIRED, SLUGGABLE_PATTERN, Trim } from '../../common/validation/transforms.js';

const NAME_MESSAGE = { message: 'name must be 1-50 characters (after trimming)' };

/** The body of POST /tags and GraphQL's CreateTagInput. */
@InputType('CreateTagInput', { description: 'A new tag' })
export class CreateTagDto {
  @Field(() => String, { description: 'Its name (1-50 characters, trimmed); the slug is derived from it and must not be taken' })
  @ApiProperty({ minLength: 1, maxLength: 50, pattern: SLUGGABLE_PATTERN, example: 'Release Notes', description: 'Trimmed; the slug (lower-case a-z0-9 and dashes) is derived from it' })
  @MaxChars(50, NAME_MESSAGE)
  @Length(1, 50, NAME_MESSAGE)
  @IsString(NAME_MESSAGE)
  @IsDefined(REQUIRED)
  @Trim()
  name: string;
}
