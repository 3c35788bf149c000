import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import { XML_BUILDER_OPTIONS, createXmlDocument, xmlText } from '../resource/xml.js';
import type { ProblemDetails } from './problem-details.js';

export const PROBLEM_XML_CONTENT_TYPE = 'application/problem+xml; charset=utf-8';
/** RFC 9457 Appendix A: the namespace of every element of a problem document. */
export const PROBLEM_XML_NAMESPACE = 'urn:ietf:rfc:7807';

function appendMember(parent: XMLBuilder, name: string, value: unknown): void {
  if (value === undefined) return;
  const element = parent.ele(name);
  if (Array.isArray(value)) {
    // Appendix A: the values of an array are `<i>` elements.
    for (const item of value) appendMember(element, 'i', item);
  } else if (typeof value === 'object' && value !== null) {
    for (const [member, child] of Object.entries(value)) appendMember(element, member, child);
  } else if (value !== null) {
    element.txt(xmlText(String(value)));
  }
}

/**
 * The problem as application/problem+xml (RFC 9457 Appendix A): `<problem xmlns="urn:ietf:rfc:7807">`
 * with each member a child element of its name (extensions such as `code` too), an array's
 * values as `<i>` children and an object's members as elements inside its own.
 */
export function renderProblemXml(problem: ProblemDetails): string {
  const document = createXmlDocument(XML_BUILDER_OPTIONS);
  const root = document.ele(PROBLEM_XML_NAMESPACE, 'problem');
  for (const [member, value] of Object.entries(problem)) appendMember(root, member, value);
  return document.end({ prettyPrint: false });
}
