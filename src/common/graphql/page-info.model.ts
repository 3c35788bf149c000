import type { Type } from '@nestjs/common';
import { Field, ObjectType } from '@nestjs/graphql';
import { encodeCursor, type Page } from '../pagination/cursor.js';

@ObjectType('PageInfo', { description: 'Where a page of a list stands: pass endCursor as `after` for the next page' })
export class PageInfo {
  @Field(() => Boolean, { description: 'Whether nodes follow this page' })
  hasNextPage: boolean;

  /** Not a field: answers hasPreviousPage (PageInfoResolver), so its query runs only when that is selected. */
  previous: () => Promise<boolean>;

  @Field(() => String, { nullable: true, description: 'The cursor of the first node; null when the page is empty' })
  startCursor: string | null;

  @Field(() => String, { nullable: true, description: 'The cursor of the last node: pass it as `after` for the next page; null when the page is empty' })
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

/** The edges, nodes and pageInfo of a connection, from one keyset page. */
export function connectionOf<T extends { id: number }>(page: Page<T>): { edges: Edge<T>[]; nodes: T[]; pageInfo: PageInfo } {
  const edges = page.items.map((node) => ({ cursor: page.cursorOf ? page.cursorOf(node) : encodeCursor(node.id), node }));
  return {
    edges,
    nodes: page.items,
    pageInfo: {
      hasNextPage: page.nextCursor !== null,
      previous: page.hasPrevious ?? (() => Promise.resolve(false)),
      startCursor: edges.length > 0 ? edges[0].cursor : null,
      endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null,
    },
  };
}

/**
 * The Connection type of a resource (`<Name>Connection` with `<Name>Edge`): edges, nodes and
 * pageInfo. Resolvers add `totalCount` where they count.
 */
export function ConnectionType<T>(node: Type<T>, name: string) {
  const plural = `${name.toLowerCase()}s`;
  @ObjectType(`${name}Edge`, { description: `A ${name} with its cursor` })
  class EdgeType {
    @Field(() => String, { description: `The cursor of this ${name}: pass it as \`after\` for the ${plural} after it` })
    cursor: string;

    @Field(() => node, { description: `The ${name}` })
    node: T;
  }

  @ObjectType({ isAbstract: true })
  abstract class Connection {
    @Field(() => [EdgeType], { description: `The ${plural} of this page, each with its cursor` })
    edges: Edge<T>[];

    @Field(() => [node], { description: `The ${plural} of this page (the edges' nodes, without cursors)` })
    nodes: T[];

    @Field(() => PageInfo, { description: 'Where this page stands in the list, and the cursor for the next page' })
    pageInfo: PageInfo;
  }
  return Connection;
}
