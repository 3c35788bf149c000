import type { Links } from './links.js';

export type ResourceKind = 'post' | 'comment' | 'user';

/** A resource as clients see it: its fields and `_links`, in every format. */
export type ResourceView = { _links: Links } & Record<string, unknown>;

const PLURAL: Record<ResourceKind, string> = { post: 'posts', comment: 'comments', user: 'users' };

/**
 * What controllers return for one resource. The representation hooks render it in the
 * negotiated format and derives the ETag from `version`.
 */
export class Resource {
  constructor(
    readonly kind: ResourceKind,
    readonly view: ResourceView,
    readonly version: number,
  ) {}
}

/** What controllers return for a list: the items and, when more exist, the next page's path. */
export class ResourceList {
  constructor(
    readonly kind: ResourceKind,
    readonly items: ResourceView[],
    readonly nextHref: string | null,
  ) {}

  get plural(): string {
    return PLURAL[this.kind];
  }
}

/** The path of the next page: the same list with the same limit and filters, after `cursor`. */
export function nextPageHref(
  path: string,
  cursor: string | null,
  params: Record<string, string | number | undefined>,
): string | null {
  if (cursor === null) return null;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  query.set('cursor', cursor);
  return `${path}?${query.toString()}`;
}
