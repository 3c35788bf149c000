import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { ListItem, Resource, ResourceList } from '../../common/resource/resource.js';
import { XML_BUILDER_OPTIONS, xmlText } from '../../common/resource/xml.js';

const isObject = (value: unknown): value is ListItem => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field an object (a resource inside an event) is an element with its own fields and links. */
function appendView(parent: XMLBuilder, name: string, view: ListItem): void {
  const element = parent.ele(name);
  for (const [field, value] of Object.entries(view)) {
    if (field === '_links' || value === undefined) continue;
    if (isObject(value)) {
      appendView(element, field, value);
      continue;
    }
    const child = element.ele(field);
    if (value !== null) child.txt(xmlText(String(value)));
  }
  for (const [rel, link] of Object.entries(view._links ?? {})) element.ele('link', { rel, href: xmlText(link.href) });
}

/** `<post>` with one child element a field and `<link rel href/>` a link; lists as `<posts>`. */
export function renderXml(resource: Resource | ResourceList): string {
  const document = create(XML_BUILDER_OPTIONS);
  if ('items' in resource) {
    const list = document.ele(resource.plural);
    for (const item of resource.items) appendView(list, resource.kind, item);
  } else {
    appendView(document, resource.kind, resource.view);
  }
  return document.end({ prettyPrint: false });
}
