import { Field, InputType, Int } from '@nestjs/graphql';
import { ApiPropertyOptional, type OpenAPIObject, type SchemaObject } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { PartialInputType } from '../../common/validation/partial-input.js';
import { CreatePostDto } from './create-post.dto.js';

/**
 * The body of PATCH /posts/{id} and GraphQL's UpdatePostInput: a new post's title, body, status
 * publishAt and tags (the new set), each optional, and `revision` to restore the title and body of an earlier one.
 */
@InputType('UpdatePostInput', { description: 'Changes to a post: only the fields given change' })
export class UpdatePostDto extends PartialInputType(CreatePostDto, ['title', 'body', 'bodyFormat', 'slug', 'excerpt', 'metaTitle', 'metaDescription', 'canonicalUrl', 'coverImageId', 'status', 'publishAt', 'tags', 'locale']) {
  @Field(() => Int, { nullable: true, description: "Restore the title and body of this revision (a new revision records it); an unknown number is 400" })
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_INT32, description: 'Restore the title and body of this revision: alone, not with title or body; a number the post has no revision of is 400' })
  @Max(MAX_INT32, { message: 'revision must be a positive integer' })
  @Min(1, { message: 'revision must be a positive integer' })
  @IsInt({ message: 'revision must be a positive integer' })
  @IsOptional()
  revision?: number;
}

/**
 * States SUPPORTED_LOCALES in the OpenAPI document: the `locale` a post's POST and PATCH bodies
 * take, and the `?locale=` of the lists of posts (those, or `*`).
 */
export function describePostLocales(document: OpenAPIObject, supportedLocales: readonly string[]): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const name of ['CreatePostDto', 'UpdatePostDto']) {
    const property = schemas[name]?.properties?.locale as SchemaObject | undefined;
    if (property) property.enum = [...supportedLocales];
  }
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { parameters?: unknown[] } | undefined>)) {
      for (const parameter of (operation?.parameters ?? []) as { name?: string; in?: string; schema?: SchemaObject }[]) {
        if (parameter.name === 'locale' && parameter.in === 'query' && parameter.schema) parameter.schema.enum = ['*', ...supportedLocales];
      }
    }
  }
}
