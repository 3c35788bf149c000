import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { ListItem, Resource, ResourceList } from '../../common/resource/resource.js';
import { eachLink } from '../../common/resource/links.js';
import { XML_BUILDER_OPTIONS, createXmlDocument, xmlText } from '../../common/resource/xml.js';

const isObject = (value: unknown): value is ListItem => typeof value === 'object' && value !== null && !Array.isArray(value);

type ItemNames = (field: string) => string | undefined;

/**
 * A field an object (a resource inside an event) is an element with its own fields and links; an
 * array an element with one child a value (`<tags><tag>news</tag></tags>`, named by the origin) or
 * an object (`<variants><variant><name>w320</name>…</variant></variants>`).
 */
function appendView(parent: XMLBuilder, name: string, view: ListItem, itemName?: ItemNames, linkRel?: ItemNames): void {
  const element = parent.ele(name);
  for (const [field, value] of Object.entries(view)) {
    if (field === '_links' || value === undefined) continue;
    if (isObject(value)) {
      appendView(element, field, value);
      continue;
    }
    if (Array.isArray(value)) {
      const list = element.ele(field);
      const child = itemName?.(field) ?? 'item';
      for (const entry of value as unknown[]) {
        // An entry that is an object (a media item's variant) is an element with its own fields.
        if (isObject(entry)) appendView(list, child, entry);
        else list.ele(child).txt(xmlText(String(entry)));
      }
      continue;
    }
    const child = element.ele(field);
    if (value !== null) child.txt(xmlText(String(value)));
  }
  for (const { rel, link } of eachLink(view._links ?? {}, linkRel))
    element.ele('link', {
      rel,
      ...(link.hreflang === undefined ? {} : { hreflang: xmlText(link.hreflang) }),
      href: xmlText(link.href),
      ...(link.name === undefined ? {} : { name: xmlText(link.name) }),
    });
}

/** `<post>` with one child element a field and `<link rel href/>` a link (one per entry of an array of links); lists as `<posts>`. */
export function renderXml(resource: Resource | ResourceList): string {
  const document = createXmlDocument(XML_BUILDER_OPTIONS);
  const itemName: ItemNames | undefined = resource.origin.xmlItem?.bind(resource.origin);
  const linkRel: ItemNames | undefined = resource.origin.linkRel?.bind(resource.origin);
  if ('items' in resource) {
    const list = document.ele(resource.plural);
    for (const item of resource.items) appendView(list, resource.kind, item, itemName, linkRel);
  } else {
    appendView(document, resource.kind, resource.view, itemName, linkRel);
  }
  return document.end({ prettyPrint: false });
}
