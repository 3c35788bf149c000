import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { Resource, ResourceList, ResourceView } from '../../common/resource/resource.js';

// Characters XML 1.0 cannot carry (control characters) become U+FFFD instead of breaking the document.
const BUILDER_OPTIONS = { version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' } as const;

// xmlbuilder2 leaves anything shaped like an entity (`&amp;`, `&#60;`, `&nbsp;`) unescaped, so user
// text "&amp;" would read back as "&" and "&nbsp;" would break the document. Escaping every `&`
// first makes each one `&amp;`, which it then keeps as is.
const escapeAmpersands = (text: string) => text.replaceAll('&', '&amp;');

function appendView(parent: XMLBuilder, kind: string, view: ResourceView): void {
  const element = parent.ele(kind);
  for (const [name, value] of Object.entries(view)) {
    if (name === '_links') continue;
    const child = element.ele(name);
    if (value !== null && value !== undefined) child.txt(escapeAmpersands(String(value)));
  }
  for (const [rel, link] of Object.entries(view._links)) element.ele('link', { rel, href: escapeAmpersands(link.href) });
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
