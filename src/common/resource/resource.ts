import type { Links } from './links.js';

/** A resource as clients see it: its fields and `_links`, in every format. */
export type ResourceView = { _links: Links } & Record<string, unknown>;

/** Where a representation comes from: its kind and collection (a ResourceDefinition). */
export interface ResourceOrigin {
  readonly kind: string;
  readonly plural: string;
  /**
   * The links HAL gives an item whose fields carry none (an event: `self` → `/events/{cursor}`),
   * so a HAL client can follow each item; JSON and XML keep the item as it is.
   */
  halLinks?(item: ListItem): Links;
  /** The name of each element of an array field in XML (`tag` in a post's `<tags>`); `item` when it names none. */
  xmlItem?(field: string): string | undefined;
  /** The rel of each entry of an array of links where links are written one by one (XML, HTML): `tag` for a post's `tags`. */
  linkRel?(rel: string): string | undefined;
}

/**
 * What controllers return for one resource. The representation hooks render it in the
 * negotiated format and derive the ETag from `version` (from the body itself when it has none).
 */
export class Resource {
  constructor(
    readonly origin: ResourceOrigin,
    readonly view: ListItem,
    readonly version: number | null,
    /**
     * What its links show beyond its own version (a post's translations, which change without
     * it): a short tag the ETag carries after the version, so a client's copy is not current
     * when only they changed. Undefined: the version says it all.
     */
    readonly variant?: string,
  ) {}

  get kind(): string {
    return this.origin.kind;
  }
}

/** An item of a list: a resource's view, or plain fields for a list of what is not a resource (the event log). */
export type ListItem = Record<string, unknown> & { _links?: Links };

/** The item as HAL shows it: with the links its origin gives an item that has none. */
export function halItem(origin: ResourceOrigin, item: ListItem): ListItem {
  return item._links !== undefined || !origin.halLinks ? item : { ...item, _links: origin.halLinks(item) };
}

/** What controllers return for a list: the items and, when more exist, the next page's path. */
export class ResourceList<T extends ListItem = ListItem> {
  constructor(
    readonly origin: ResourceOrigin,
    readonly items: T[],
    readonly nextHref: string | null,
    /** What the items were made from (the Post entities), for a renderer that reads more than the view (a feed). */
    readonly sources: readonly unknown[] = [],
  ) {}

  get kind(): string {
    return this.origin.kind;
  }

  get plural(): string {
    return this.origin.plural;
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
