import { ArgsType, ObjectType } from '@nestjs/graphql';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { Media } from '../media.entity.js';

@ObjectType('MediaConnection', { description: 'A page of media items, newest first' })
export class MediaConnection extends ConnectionType(Media, 'Media') {}

/** Query.mediaList(first, after). */
@ArgsType()
export class MediaListArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;
}
