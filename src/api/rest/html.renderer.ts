import { Injectable } from '@nestjs/common';
import { Eta } from 'eta';
import type { Actor } from '../../common/actor.js';
import { avatarSource, LINKS_TEMPLATE } from '../../common/resource/html.js';
import { eachLink, type Links } from '../../common/resource/links.js';
import type { Resource, ResourceList } from '../../common/resource/resource.js';

type Template = ReturnType<Eta['compile']>;

/**
 * Eta, with `<%= %>` escaping (autoEscape is on), so user text can never become markup; `<%~ %>`
 * (raw) is used only for the layout's own body slot.
 */
const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · Blog</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0b57d0}header.byline{display:flex;align-items:center;gap:.5rem;color:#555}
img.avatar{width:2rem;height:2rem;border-radius:50%;object-fit:cover}
.body{white-space:pre-wrap}ol.comments{padding-left:1.2rem}ol.comments li{margin:.75rem 0}
nav{margin-bottom:1.5rem;font-size:.9rem}time{color:#777;font-size:.85rem}
nav.links{margin-top:2rem}nav.links h2{font-size:1rem}nav.links code{color:#777}
</style>
</head>
<body>
<nav><a href="/posts">Posts</a> · <a href="/users">Users</a> · <a href="/docs">API</a> · <a href="/graphql">GraphQL</a></nav>
<%~ it.body %>
</body>
</html>`;

/**
 * Readable pages for browsers, from each resource's own templates. A page shows names rather
 * than ids: what a page loads besides the resource comes from its definition's page loaders.
 */
@Injectable()
export class HtmlRenderer {
  private readonly eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false });
  private readonly compiled = new Map<string, Template>();

  /** `reader`: who asked, for what a page shows besides the resource (a post's comments follow the read policy). */
  async render(resource: Resource | ResourceList, reader: Actor | null = null): Promise<string> {
    if ('items' in resource) {
      const title = resource.plural[0].toUpperCase() + resource.plural.slice(1);
      const items = await resource.origin.listItems(resource.items);
      return this.page(title, resource.origin.html.list, { title, items, nextHref: resource.nextHref });
    }
    const { origin, view } = resource;
    const links: Links | undefined = view._links ?? origin.halLinks?.(view);
    return this.page(origin.html.title(view), origin.html.page, await origin.pageModel(view, reader), links && eachLink(links, origin.linkRel?.bind(origin)));
  }

  /** The page: the resource's own template, then (for one resource) every one of its links. */
  private page(title: string, template: string, data: Record<string, unknown>, links?: ReturnType<typeof eachLink>): string {
    let body = this.template(template).call(this.eta, { ...data, avatar: avatarSource });
    if (links) body += '\n' + this.template(LINKS_TEMPLATE).call(this.eta, { links });
    return this.template(LAYOUT).call(this.eta, { title, body });
  }

  private template(source: string): Template {
    let template = this.compiled.get(source);
    if (!template) {
      template = this.eta.compile(source);
      this.compiled.set(source, template);
    }
    return template;
  }
}
