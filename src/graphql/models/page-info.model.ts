import { Field, ObjectType } from '@nestjs/graphql';
import { encodeCursor, type Page } from '../../common/pagination/cursor.js';

@ObjectType('PageInfo')
export class PageInfo {
  @Field(() => Boolean)
  hasNextPage: boolean;

  @Field(() => String, { nullable: true, description: 'The cursor of the last node: pass it as `after` for the next page' })
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

/** The edges, nodes and pageInfo of a connection, from one keyset page. */
export function connectionOf<T extends { id: number }>(page: Page<T>): { edges: Edge<T>[]; nodes: T[]; pageInfo: PageInfo } {
  const edges = page.items.map((node) => ({ cursor: encodeCursor(node.id), node }));
  return {
    edges,
    nodes: page.items,
    pageInfo: { hasNextPage: page.nextCursor !== null, endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null },
  };
}
