import { InputType } from '@nestjs/graphql';
import { PartialInputType } from '../../common/validation/partial-input.js';
import { CreatePostDto } from './create-post.dto.js';

/** The body of PATCH /posts/{id} and GraphQL's UpdatePostInput: a new post's title and body, each optional. */
@InputType('UpdatePostInput', { description: 'Changes to a post: only the fields given change' })
export class UpdatePostDto extends PartialInputType(CreatePostDto, ['title', 'body']) {}
