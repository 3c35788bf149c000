import type { Actor } from '../../../common/actor.js';
import type { ListItem } from '../../../common/resource/resource.js';

/**
 * The HTML page of one resource of a kind (a post, a comment, …): its title and its body, which
 * shows what the page loads besides the resource as the reader may see it (a post's comments
 * follow the read policy). The renderer puts the body in the layout, followed by its links.
 */
export interface ItemPage {
  /** The kind of the resources it shows (`post`: a Resource's `kind`). */
  readonly kind: string;
  title(view: ListItem): string;
  body(view: ListItem, reader: Actor | null): string | Promise<string>;
  /**
   * What the page adds to the document's `<head>` (a post's description, canonical link, Open
   * Graph and JSON-LD), as HTML whose every value is escaped; none when absent.
   */
  head?(view: ListItem, reader: Actor | null): string | Promise<string>;
  /** The language of the page (`<html lang>`, a BCP 47 tag); `en` when absent. */
  lang?(view: ListItem): string | undefined;
}

/** The HTML page of a list of resources of a kind (`it.title`, `it.items`, `it.nextHref` in its template). */
export interface ListPage {
  readonly kind: string;
  readonly title: string;
  body(items: ListItem[], nextHref: string | null): string | Promise<string>;
}
