import { Field, InputType } from '@nestjs/graphql';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, ValidateIf } from 'class-validator';
import { MaxChars, OMITTED_OR_NOT_NULL, Trim } from '../../common/validation/transforms.js';

/** The body of PATCH /posts/{id} and GraphQL's UpdatePostInput. */
@InputType('UpdatePostInput', { description: 'Changes to a post: only the fields given change' })
export class UpdatePostDto {
  @Field(() => String, { nullable: true, description: 'A new title (1-200 characters, trimmed)' })
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @MaxChars(200, { message: 'title must be 1-200 characters (after trimming)' })
  @Length(1, 200, { message: 'title must be 1-200 characters (after trimming)' })
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  @Trim()
  title?: string;

  @Field(() => String, { nullable: true, description: 'A new text (1-100000 characters)' })
  @ApiPropertyOptional({ minLength: 1, maxLength: 100000 })
  @Length(1, 100_000, { message: 'body must be 1-100000 characters' })
  @IsString()
  @ValidateIf(OMITTED_OR_NOT_NULL)
  body?: string;
}
