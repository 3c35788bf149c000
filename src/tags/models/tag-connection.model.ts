import { ArgsType, Field, Int, ObjectType } from '@nestjs/graphql';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { MAX_INT32 } from '../../common/validation/limits.js';
import { Tag } from '../tag.entity.js';

@ObjectType('TagConnection', { description: 'A page of tags, most used first' })
export class TagConnection extends ConnectionType(Tag, 'Tag') {}

/** Query.tags(first, after). */
@ArgsType()
export class TagsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;
}

/** Query.tag(id, slug): exactly one of them. */
@ArgsType()
export class TagArgs {
  @Field(() => Int, { nullable: true, description: "The tag's id (or give slug)" })
  @Max(MAX_INT32, { message: 'id must be a positive integer' })
  @Min(1, { message: 'id must be a positive integer' })
  @IsInt({ message: 'id must be a positive integer' })
  @IsOptional()
  id?: number | null;

  @Field(() => String, { nullable: true, description: "The tag's slug (or give id)" })
  @MaxLength(200, { message: 'slug must be at most 200 characters' })
  @IsString()
  @IsOptional()
  slug?: string | null;
}

/** Tag.posts(first). */
@ArgsType()
export class TagPostsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;
}
