import { ResolveField, Resolver } from '@nestjs/graphql';
import { PageInfo } from './page-info.model.js';

/** PageInfo.hasPreviousPage: a query of its own (for pages asked for with `after`), run only when selected. */
@Resolver(() => PageInfo)
export class PageInfoResolver {
  @ResolveField('hasPreviousPage', () => Boolean, {
    description:
      'Whether nodes come before this page: false when the page was asked for without `after`; ' +
      'with `after`, true when the node of that cursor or one before it in the list still exists',
  })
  hasPreviousPage(pageInfo: PageInfo): Promise<boolean> {
    return pageInfo.previous();
  }
}
