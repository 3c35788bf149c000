import type { ResourceOrigin } from '../../../common/resource/resource.js';
import { GenericListPage } from './generic-list-page.js';
import { GenericPage } from './generic-page.js';
import type { ItemPage, ListPage } from './page.js';

/**
 * The pages of each kind of resource, as pages.module lists them: the HTML renderer asks it for
 * a Resource's or a list's. A kind without a page of its own gets a generic one (its fields, its
 * links), made on first use.
 */
export class PageRegistry {
  private readonly items = new Map<string, ItemPage>();
  private readonly lists = new Map<string, ListPage>();

  constructor(items: readonly ItemPage[], lists: readonly ListPage[]) {
    for (const page of items) register(this.items, page);
    for (const page of lists) register(this.lists, page);
  }

  item(origin: ResourceOrigin): ItemPage {
    let page = this.items.get(origin.kind);
    if (!page) this.items.set(origin.kind, (page = new GenericPage(origin.kind)));
    return page;
  }

  list(origin: ResourceOrigin): ListPage {
    let page = this.lists.get(origin.kind);
    if (!page) this.lists.set(origin.kind, (page = new GenericListPage(origin.kind, origin.plural)));
    return page;
  }
}

function register<P extends { kind: string }>(pages: Map<string, P>, page: P): void {
  if (pages.has(page.kind)) throw new Error(`Two HTML pages for the kind ${page.kind}`);
  pages.set(page.kind, page);
}
