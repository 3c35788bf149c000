import type { Type } from '@nestjs/common';
import { Field, ObjectType } from '@nestjs/graphql';
import { encodeCursor, type Page } from '../pagination/cursor.js';

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

/**
 * The Connection type of a resource (`<Name>Connection` with `<Name>Edge`): edges, nodes and
 * pageInfo. Resolvers add `totalCount` where they count.
 */
export function ConnectionType<T>(node: Type<T>, name: string) {
  @ObjectType(`${name}Edge`)
  class EdgeType {
    @Field(() => String)
    cursor: string;

    @Field(() => node)
    node: T;
  }

  @ObjectType({ isAbstract: true })
  abstract class Connection {
    @Field(() => [EdgeType])
    edges: Edge<T>[];

    @Field(() => [node])
    nodes: T[];

    @Field(() => PageInfo)
    pageInfo: PageInfo;
  }
  return Connection;
}
