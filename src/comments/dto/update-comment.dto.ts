import { InputType } from '@nestjs/graphql';
import { CommentTextDto } from './create-comment.dto.js';

/** The body of PATCH /comments/{id} and GraphQL's UpdateCommentInput: a new text, under the rules of a new comment's. */
@InputType('UpdateCommentInput', { description: 'Changes to a comment' })
export class UpdateCommentDto extends CommentTextDto {}
