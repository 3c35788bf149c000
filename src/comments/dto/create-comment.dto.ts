import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { REQUIRED } from '../../common/validation/transforms.js';

/** The body of POST /posts/{id}/comments; in GraphQL, the rules of CreateCommentInput and UpdateCommentInput. */
@InputType({ isAbstract: true })
export class CreateCommentDto {
  @Field(() => String, { description: 'The text (1-10000 characters)' })
  @ApiProperty({ minLength: 1, maxLength: 10000, example: 'Nice post' })
  @Length(1, 10_000, { message: 'body must be 1-10000 characters' })
  @IsString()
  @IsDefined(REQUIRED)
  body: string;
}
