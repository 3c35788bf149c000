import { ArgsType, Field, InputType, Int } from '@nestjs/graphql';
import { IsDefined, IsInt, Max, Min } from 'class-validator';
import { FirstArg } from '../../common/graphql/page.args.js';
import { REQUIRED } from '../../common/validation/transforms.js';
import { CreateCommentDto } from '../dto/create-comment.dto.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

export const DEFAULT_COMMENTS_PAGE_SIZE = 50;

/**
 * createComment's input: the REST body (CreateCommentDto, whose rules it inherits) plus the
 * post, which REST takes from the path.
 */
@InputType('CreateCommentInput', { description: 'A new comment on a post' })
export class CreateCommentInput extends CreateCommentDto {
  @Field(() => Int, { description: 'The id of the post to comment on' })
  @Max(MAX_INT32, { message: 'postId must be a positive integer' })
  @Min(1, { message: 'postId must be a positive integer' })
  @IsInt({ message: 'postId must be a positive integer' })
  @IsDefined(REQUIRED)
  postId: number;
}

/**
 * Post.comments(first) and Comment.replies(first): the first comments, oldest first. A bare list hands out no
 * cursors, so it takes no `after` (GET /posts/{id}/comments pages through them all).
 */
@ArgsType()
export class CommentsArgs {
  @FirstArg(DEFAULT_COMMENTS_PAGE_SIZE)
  first: number;
}

