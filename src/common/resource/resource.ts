import type { Links } from './links.js';

/** A resource as clients see it: its fields and `_links`, in every format. */
export type ResourceView = { _links: Links } & Record<string, unknown>;

/** Where a representation comes from: its kind and collection (a ResourceDefinition). */
export interface ResourceOrigin {
  readonly kind: string;
  readonly plural: string;
}

/**
 * What controllers return for one resource. The representation hooks render it in the
 * negotiated format and derive the ETag from `version`.
 */
export class Resource {
  constructor(
    readonly origin: ResourceOrigin,
    readonly view: ResourceView,
    readonly version: number,
  ) {}

  get kind(): string {
    return this.origin.kind;
  }
}

/** An item of a list: a resource's view, or plain fields for a list of what is not a resource (the event log). */
export type ListItem = Record<string, unknown> & { _links?: Links };

/** Where a list comes from: its kind and collection, its HTML list template, what its HTML items show besides their fields. */
export interface ListOrigin<T extends ListItem = ListItem> extends ResourceOrigin {
  readonly html: { readonly list: string };
  listItems(items: T[]): Promise<T[]>;
}

/** What controllers return for a list: the items and, when more exist, the next page's path. */
export class ResourceList<T extends ListItem = ListItem> {
  constructor(
    readonly origin: ListOrigin<T>,
    readonly items: T[],
    readonly nextHref: string | null,
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
