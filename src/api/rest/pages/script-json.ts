/** What may not appear as itself in a script element's JSON: markup (`</script>`, `<!--`), entities, and JavaScript's line terminators. */
const UNSAFE = /[<>&\u2028\u2029]/g;

/**
 * A value as JSON for the inside of a `<script>` element (JSON-LD): JSON.stringify's text with
 * `<`, `>`, `&`, U+2028 and U+2029 written as `\uXXXX` escapes, so no string in it can close the
 * element or open a comment, and JSON.parse of the element's text gives the value back.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
