import { Field, InputType, Int } from '@nestjs/graphql';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { REQUIRED } from '../../common/validation/transforms.js';

/** A comment's text: what a new comment and a change of one share (UpdateCommentDto). */
@InputType({ isAbstract: true })
export class CommentTextDto {
  @Field(() => String, { description: 'The text (1-10000 characters)' })
  @ApiProperty({ minLength: 1, maxLength: 10000, example: 'Nice post' })
  @Length(1, 10_000, { message: 'body must be 1-10000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;
}

/** The body of POST /posts/{id}/comments; in GraphQL, the rules of CreateCommentInput. */
@InputType({ isAbstract: true })
export class CreateCommentDto extends CommentTextDto {
  @Field(() => Int, {
    nullable: true,
    description: 'The comment this one replies to: a comment of the same post (null or absent: a top-level comment). Nesting deeper than COMMENTS_MAX_DEPTH is refused',
  })
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: MAX_INT32,
    example: null,
    description: 'The comment this one replies to: a comment of the same post (null or absent: a top-level comment). Nesting deeper than COMMENTS_MAX_DEPTH (default 5) is 400',
  })
  @Max(MAX_INT32, { message: 'parentId must be a positive integer or null' })
  @Min(1, { message: 'parentId must be a positive integer or null' })
  @IsInt({ message: 'parentId must be a positive integer or null' })
  @IsOptional()
  parentId?: number | null;
}
