import { ArgsType, Field, InputType, Int } from '@nestjs/graphql';
import { IsDefined, IsInt, Max, Min } from 'class-validator';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { REQUIRED } from '../../common/validation/transforms.js';
import { CreateCommentDto } from '../dto/create-comment.dto.js';

export const DEFAULT_COMMENTS_PAGE_SIZE = 50;

/**
 * createComment's input: the REST body (CreateCommentDto, whose rules it inherits) plus the
 * post, which REST takes from the path.
 */
@InputType('CreateCommentInput')
export class CreateCommentInput extends CreateCommentDto {
  @Field(() => Int)
  @Max(2_147_483_647, { message: 'postId must be a positive integer' })
  @Min(1, { message: 'postId must be a positive integer' })
  @IsInt({ message: 'postId must be a positive integer' })
  @IsDefined(REQUIRED)
  postId: number;
}
// The inherited `body` is a GraphQL field too (a subclass cannot redeclare it with a decorator).
Field(() => String)(CreateCommentInput.prototype, 'body');

/** Post.comments(first, after): oldest first. */
@ArgsType()
export class CommentsArgs {
  @FirstArg(DEFAULT_COMMENTS_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;
}
