import { Injectable } from '@nestjs/common';
import type { Actor } from '../../common/actor.js';
import { eachLink, type Links } from '../../common/resource/links.js';
import type { Resource, ResourceList } from '../../common/resource/resource.js';
import { PublicUrls } from '../../publication/public-urls.js';
import { LAYOUT, LINKS } from './pages/layout.js';
import { PageRegistry } from './pages/page-registry.js';

/**
 * Readable pages for browsers, each from its page in pages/ (found by the resource's kind),
 * which shows names rather than ids and holds its own template, compiled once. Every page
 * links the feed (CONTRACT §13).
 */
@Injectable()
export class HtmlRenderer {
  private readonly feedHref: string;

  constructor(
    private readonly pages: PageRegistry,
    urls: PublicUrls,
  ) {
    this.feedHref = urls.absolute('/feed');
  }

  /** `reader`: who asked, for what a page shows besides the resource (a post's comments follow the read policy). */
  async render(resource: Resource | ResourceList, reader: Actor | null = null): Promise<string> {
    if ('items' in resource) {
      const page = this.pages.list(resource.origin);
      return LAYOUT({ title: page.title, feedHref: this.feedHref, body: await page.body(resource.items, resource.nextHref) });
    }
    const { origin, view } = resource;
    const page = this.pages.item(origin);
    const [head, rendered] = await Promise.all([page.head?.(view, reader), page.body(view, reader)]);
    let body = rendered;
    // Then every one of its links, whatever its page shows.
    const links: Links | undefined = view._links ?? origin.halLinks?.(view);
    if (links) body += '\n' + LINKS({ links: eachLink(links, origin.linkRel?.bind(origin)) });
    return LAYOUT({ title: page.title(view), lang: page.lang?.(view), feedHref: this.feedHref, head, body });
  }
}
