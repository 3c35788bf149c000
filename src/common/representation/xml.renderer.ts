import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { Resource, ResourceList, ResourceView } from './resource.js';

// Characters XML 1.0 cannot carry (control characters) become U+FFFD instead of breaking the document.
const BUILDER_OPTIONS = { version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' } as const;

function appendView(parent: XMLBuilder, kind: string, view: ResourceView): void {
  const element = parent.ele(kind);
  for (const [name, value] of Object.entries(view)) {
    if (name === '_links') continue;
    const child = element.ele(name);
    if (value !== null && value !== undefined) child.txt(String(value));
  }
  for (const [rel, link] of Object.entries(view._links)) element.ele('link', { rel, href: link.href });
}

/** `<post>` with one child element a field and `<link rel href/>` a link; lists as `<posts>`. */
export function renderXml(resource: Resource | ResourceList): string {
  const document = create(BUILDER_OPTIONS);
  if ('items' in resource) {
    const list = document.ele(resource.plural);
    for (const item of resource.items) appendView(list, resource.kind, item);
  } else {
    appendView(document, resource.kind, resource.view);
  }
  return document.end({ prettyPrint: false });
}
