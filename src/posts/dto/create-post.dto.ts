import { Field, InputType, Int } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MaxChars, REQUIRED, Trim } from '../../common/validation/transforms.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

const TITLE_MESSAGE = { message: 'title must be 1-200 characters (after trimming)' };

/** The body of POST /posts and GraphQL's CreatePostInput. */
@InputType('CreatePostInput', { description: 'A new post' })
export class CreatePostDto {
  @Field(() => String, { description: 'The title (1-200 characters, trimmed)' })
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Hello', description: 'Trimmed' })
  @MaxChars(200, TITLE_MESSAGE)
  @Length(1, 200, TITLE_MESSAGE)
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  title: string;

  @Field(() => String, { description: 'The text (1-100000 characters)' })
  @ApiProperty({ minLength: 1, maxLength: 100000, example: 'My first post' })
  @Length(1, 100_000, { message: 'body must be 1-100000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;

  /** Admins only: write the post on someone else's behalf. */
  @Field(() => Int, { nullable: true, description: 'Admins only: the author, if not yourself' })
  @ApiPropertyOptional({ type: 'integer', description: 'Admins only: the author, if not yourself' })
  @Max(MAX_INT32)
  @Min(1)
  @IsInt({ message: 'authorId must be an integer' })
  @IsOptional()
  authorId?: number;
}
