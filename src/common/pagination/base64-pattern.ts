/**
 * Regular expressions for the base64url text of cursors (`v1:42`, `e1:0:42`), so that the OpenAPI
 * document states exactly which cursors the service takes: a schema-driven client (Schemathesis)
 * then never generates one that is refused, and never misses one that is taken.
 *
 * base64url turns each 3 bytes into 4 characters. After a 3-byte prefix, the text is digits and
 * `:`, which share their high nibble (0x3_), and then each byte maps to characters of its own: the
 * 1st byte of a group to 2 characters (the 2nd of which also says whether a 2nd byte follows), the
 * 2nd and 3rd to 1 each. So a cursor's shape (a digit, a non-zero digit, `:`) position by position
 * is a sequence of character classes, built here from what Buffer's encoder actually writes.
 */

/** The bytes allowed at one position of the text: `'0123456789'`, `'123456789'`, `':'`. */
export type Slot = string;

export const DIGIT: Slot = '0123456789';
export const NON_ZERO_DIGIT: Slot = '123456789';

const encode = (text: string) => Buffer.from(text, 'latin1').toString('base64url');

/** A character class of base64url characters (never `-` or `_` for these bytes, but escaped anyway). */
function characterClass(characters: Iterable<string>): string {
  const sorted = [...new Set(characters)].sort();
  return sorted.length === 1 ? sorted[0].replace(/[-_]/, '\\$&') : `[${sorted.join('').replace('-', '\\-')}]`;
}

/** The characters a byte of `slot` becomes at `position` in its group (0, 1, 2); `last` for the final byte of the text. */
function token(slot: Slot, position: number, last: boolean): string {
  for (const byte of slot) {
    if ((byte.charCodeAt(0) & 0xf0) !== 0x30) throw new Error(`Cannot describe the base64 of ${JSON.stringify(byte)} byte by byte`);
  }
  if (position === 1) return characterClass([...slot].map((byte) => encode(`0${byte}0`)[2]));
  if (position === 2) return characterClass([...slot].map((byte) => encode(`00${byte}`)[3]));
  // Two characters: the first from the byte's top 6 bits, the second from its low 2 bits and the next byte's high nibble.
  const pairs = [...slot].map((byte) => encode(last ? byte : `${byte}00`).slice(0, 2));
  const byFirst = new Map<string, string[]>();
  for (const [first, second] of pairs) byFirst.set(first, [...(byFirst.get(first) ?? []), second]);
  const alternatives = [...byFirst].sort(([a], [b]) => a.localeCompare(b)).map(([first, seconds]) => `${first}${characterClass(seconds)}`);
  return alternatives.length === 1 ? alternatives[0] : `(?:${alternatives.join('|')})`;
}

/** The tokens of a text of fixed shape (one slot a byte) that starts at a group boundary. */
function tokens(slots: readonly Slot[]): string[] {
  return slots.map((slot, index) => token(slot, index % 3, index === slots.length - 1));
}

/** Tokens as a regular expression, runs of the same whole group written once with a count. */
function compress(parts: readonly string[]): string {
  let source = '';
  let index = 0;
  while (index < parts.length) {
    const group = parts.slice(index, index + 3);
    let count = 1;
    if (index % 3 === 0 && group.length === 3) {
      while (parts.slice(index + count * 3, index + count * 3 + 3).join('\u0000') === group.join('\u0000')) count += 1;
    }
    source += count > 1 ? `(?:${group.join('')}){${count}}` : parts[index];
    index += count > 1 ? count * 3 : 1;
  }
  return source;
}

interface TrieNode {
  end: boolean;
  children: Map<string, TrieNode>;
}

/** Alternatives that share their first tokens, written as nested groups: `A(?:B|C(?:D)?)`. */
function alternation(sequences: readonly string[][]): string {
  const root: TrieNode = { end: false, children: new Map() };
  for (const sequence of sequences) {
    let node = root;
    for (const part of sequence) {
      let child = node.children.get(part);
      if (!child) node.children.set(part, (child = { end: false, children: new Map() }));
      node = child;
    }
    node.end = true;
  }
  const write = (node: TrieNode): string => {
    const branches = [...node.children].map(([part, child]) => part + write(child));
    if (branches.length === 0) return '';
    if (branches.length === 1 && !node.end) return branches[0];
    const group = `(?:${branches.join('|')})`;
    return node.end ? `${group}?` : group;
  };
  return write(root);
}

/**
 * The pattern of `base64url(prefix + text)` for every text of one of the given shapes. `prefix`
 * is 3 bytes (a whole group), so the text starts at a group boundary.
 */
export function base64Pattern(prefix: string, shapes: readonly (readonly Slot[])[]): string {
  if (prefix.length !== 3) throw new Error('The prefix must be one whole base64 group (3 bytes)');
  const body = shapes.length === 1 ? compress(tokens(shapes[0])) : alternation(shapes.map(tokens));
  return `^${encode(prefix)}${body}$`;
}

/** The shapes of the decimal numbers from 1 with up to `digits` digits (no leading zero). */
export function positiveIntegerShapes(digits: number, first: Slot = NON_ZERO_DIGIT): Slot[][] {
  return Array.from({ length: digits }, (_, index) => [first, ...Array<Slot>(index).fill(DIGIT)]);
}
