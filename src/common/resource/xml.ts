import { createRequire } from 'node:module';
import type { XMLBuilder, XMLBuilderCreateOptions } from 'xmlbuilder2/lib/interfaces.js';

const require = createRequire(import.meta.url);
let xmlbuilder2: typeof import('xmlbuilder2') | undefined;

/**
 * xmlbuilder2's `create`, loaded the first time an XML document is rendered (about 130 modules
 * that a service answering JSON never needs). A CommonJS package: required, so rendering stays
 * synchronous.
 */
export function createXmlDocument(options: XMLBuilderCreateOptions): XMLBuilder {
  xmlbuilder2 ??= require('xmlbuilder2') as typeof import('xmlbuilder2');
  return xmlbuilder2.create(options);
}

/**
 * What every XML document of the service is built with (xmlbuilder2): characters XML 1.0 cannot
 * carry (control characters) become U+FFFD instead of breaking the document.
 */
export const XML_BUILDER_OPTIONS = { version: '1.0', encoding: 'UTF-8', invalidCharReplacement: '\uFFFD' } as const;

/**
 * Text for xmlbuilder2's `txt()` and attributes. It leaves anything shaped like an entity
 * (`&amp;`, `&#60;`, `&nbsp;`) unescaped, so user text "&amp;" would read back as "&" and
 * "&nbsp;" would break the document. Escaping every `&` first makes each one `&amp;`, which it
 * then keeps as is.
 */
export const xmlText = (text: string) => text.replaceAll('&', '&amp;');
