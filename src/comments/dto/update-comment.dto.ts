import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { REQUIRED } from '../../common/validation/transforms.js';

/** The body of PATCH /comments/{id} and GraphQL's UpdateCommentInput. */
@InputType('UpdateCommentInput', { description: 'Changes to a comment' })
export class UpdateCommentDto {
  @Field(() => String, { description: 'The new text (1-10000 characters)' })
  @ApiProperty({ minLength: 1, maxLength: 10000, example: 'Nice post' })
  @Length(1, 10_000, { message: 'body must be 1-10000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;
}
