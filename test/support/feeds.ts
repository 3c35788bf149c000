import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';

const SCHEMAS = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'schemas');
const schema = (name: string) => ({ fileName: name, contents: readFileSync(join(SCHEMAS, name), 'utf8') });

export const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
export const RSS_TYPE = 'application/rss+xml; charset=utf-8';
export const JSON_FEED_TYPE = 'application/feed+json; charset=utf-8';
/** Each feed type, as asked for in Accept, and the Content-Type it is answered with. */
export const FEED_TYPES = [
  ['application/atom+xml', ATOM_TYPE],
  ['application/rss+xml', RSS_TYPE],
  ['application/feed+json', JSON_FEED_TYPE],
] as const;

/** What xmllint says of a document against a schema (RELAX NG or XSD): its errors, none when valid. */
async function validate(xml: string, fileName: string, schemaFile: string, extension: 'relaxng' | 'schema', imports: readonly string[] = []): Promise<string[]> {
  const result = await validateXML({ xml: [{ fileName, contents: xml }], schema: [schema(schemaFile)], preload: imports.map(schema), extension });
  return result.errors.map((error) => error.rawMessage);
}

/** Fails unless the document is valid Atom (RFC 4287 Appendix B's RELAX NG schema). */
export async function expectValidAtom(xml: string): Promise<void> {
  expect(await validate(xml, 'feed.xml', 'atom.rng', 'relaxng'), xml.slice(0, 2000)).toEqual([]);
}

/**
 * Fails unless the document is a valid sitemaps.org 0.9 urlset (`sitemap.xsd`), one with
 * `xhtml:link` hreflang alternates (`sitemap-xhtml.xsd`), or a sitemap index (`siteindex.xsd`).
 */
export async function expectValidSitemap(xml: string, schemaFile: 'sitemap.xsd' | 'sitemap-xhtml.xsd' | 'siteindex.xsd'): Promise<void> {
  const imports = schemaFile === 'sitemap-xhtml.xsd' ? ['sitemap.xsd'] : [];
  expect(await validate(xml, 'sitemap.xml', schemaFile, 'schema', imports), xml.slice(0, 2000)).toEqual([]);
}

/** Fails unless the document is well-formed XML (xmllint parses it). */
export async function expectWellFormed(xml: string): Promise<void> {
  const result = await validateXML({ xml: [{ fileName: 'document.xml', contents: xml }], normalization: 'format' });
  expect(result.errors.map((error) => error.rawMessage), xml.slice(0, 2000)).toEqual([]);
}
