import { ArgsType, Field, ObjectType } from '@nestjs/graphql';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { PageInfo } from '../../graphql/models/page-info.model.js';
import { AfterArg, FirstArg } from '../../graphql/models/page.args.js';
import { User } from '../user.entity.js';

@ObjectType('UserEdge')
export class UserEdge {
  @Field(() => String)
  cursor: string;

  @Field(() => User)
  node: User;
}

/** A page of users, oldest first. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('UserConnection')
export class UserConnection {
  @Field(() => [UserEdge])
  edges: UserEdge[];

  @Field(() => [User])
  nodes: User[];

  @Field(() => PageInfo)
  pageInfo: PageInfo;
}

/** Query.users(first, after). */
@ArgsType()
export class UsersArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;
}
