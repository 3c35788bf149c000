import { Eta } from 'eta';

/** A compiled page template: the data in (`it`), the HTML out. */
export type PageTemplate = (data: object) => string;

/**
 * Eta, with `<%= %>` escaping (autoEscape is on), so user text can never become markup; `<%~ %>`
 * (raw) is used only for HTML built by a template (the layout's body and head slots), a post's
 * `bodyHtml` (sanitized when it was written) and JSON-LD escaped for a script element. Configuration only: nothing is kept
 * between calls, so every application in a process can share it.
 */
const eta = new Eta({ autoEscape: true, autoTrim: false, useWith: false });

/** Compiles a template once, for its page to hold: rendering a page compiles nothing. */
export function compileTemplate(source: string): PageTemplate {
  const compiled = eta.compile(source);
  return (data) => compiled.call(eta, data);
}
