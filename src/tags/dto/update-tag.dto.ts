import { InputType } from '@nestjs/graphql';
import { CreateTagDto } from './create-tag.dto.js';

/** The body of PATCH /tags/{id} and GraphQL's UpdateTagInput: a new name (the slug follows it). */
@InputType('UpdateTagInput', { description: "A tag's new name; its slug is derived again" })
export class UpdateTagDto extends CreateTagDto {}
