import type { ItemPage, ListPage } from './page.js';

/** The pages of each kind of resource, as pages.module lists them: the HTML renderer asks it for a Resource's or a list's. */
export class PageRegistry {
  private readonly items = new Map<string, ItemPage>();
  private readonly lists = new Map<string, ListPage>();

  constructor(items: readonly ItemPage[], lists: readonly ListPage[]) {
    for (const page of items) register(this.items, page);
    for (const page of lists) register(this.lists, page);
  }

  item(kind: string): ItemPage {
    return found(this.items.get(kind), kind, 'page');
  }

  list(kind: string): ListPage {
    return found(this.lists.get(kind), kind, 'list page');
  }
}

function register<P extends { kind: string }>(pages: Map<string, P>, page: P): void {
  if (pages.has(page.kind)) throw new Error(`Two HTML pages for the kind ${page.kind}`);
  pages.set(page.kind, page);
}

function found<P>(page: P | undefined, kind: string, what: string): P {
  if (!page) throw new Error(`No HTML ${what} for the kind ${kind} (src/api/rest/pages/pages.module.ts lists them)`);
  return page;
}
