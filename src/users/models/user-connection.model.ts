import { ArgsType, ObjectType } from '@nestjs/graphql';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { User } from '../user.entity.js';

/** A page of users, oldest first. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('UserConnection', { description: 'A page of users, oldest first' })
export class UserConnection extends ConnectionType(User, 'User') {}

/** Query.users(first, after). */
@ArgsType()
export class UsersArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;
}
