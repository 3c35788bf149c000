import { DomainError } from '../common/errors/domain-error.js';
import { base64Pattern, DIGIT } from '../common/pagination/base64-pattern.js';

/**
 * Where an event stands in the log: the writing transaction (PostgreSQL's transaction id; 0 on
 * SQLite) and the event's id. Events are read in (tx, id) order: a transaction's events become
 * readable together, once every transaction before it has ended.
 */
export interface EventPosition {
  tx: number;
  id: number;
}

export const START: EventPosition = { tx: 0, id: 0 };

/** Digits of each number in a cursor: 15 are always a safe integer (< 2^53). */
const WIDTH = 15;
const LARGEST = 10 ** WIDTH - 1;
const PREFIX = 'e1:';

/**
 * The pattern of every cursor this service issues and takes: base64url of `e1:<tx>:<id>`, each
 * number written with 15 digits, so that the pattern is exact and short (the OpenAPI document
 * states it; every string it matches is a position in the log).
 */
export const EVENT_CURSOR_PATTERN = base64Pattern(PREFIX, [[...Array<string>(WIDTH).fill(DIGIT), ':', ...Array<string>(WIDTH).fill(DIGIT)]]);
const FIXED = new RegExp(EVENT_CURSOR_PATTERN);

const base64 = (text: string) => Buffer.from(text).toString('base64url');

/**
 * Opaque to clients: base64url of `e1:<tx>:<id>`, each number zero-padded to 15 digits. Cursors
 * issued before the padding (`e1:0:42`) are still taken; a number beyond 15 digits (never, in
 * practice) is written that way too.
 */
export function encodeEventCursor(position: EventPosition): string {
  if (position.tx > LARGEST || position.id > LARGEST) return base64(`${PREFIX}${position.tx}:${position.id}`);
  return base64(`${PREFIX}${String(position.tx).padStart(WIDTH, '0')}:${String(position.id).padStart(WIDTH, '0')}`);
}

export function decodeEventCursor(cursor: string, field = 'after'): EventPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  let position: EventPosition | null = null;
  if (FIXED.test(cursor)) {
    const [tx, id] = text.slice(PREFIX.length).split(':');
    position = { tx: Number(tx), id: Number(id) };
  } else {
    // The unpadded form of earlier cursors, exactly as it was written (no leading zeros, canonical base64).
    const match = /^e1:(0|[1-9]\d{0,15}):(0|[1-9]\d{0,15})$/.exec(text);
    const unpadded = match ? { tx: Number(match[1]), id: Number(match[2]) } : null;
    if (unpadded && Number.isSafeInteger(unpadded.tx) && Number.isSafeInteger(unpadded.id) && base64(text) === cursor) position = unpadded;
  }
  if (!position) {
    throw DomainError.badInput(`${field} is not an event cursor this service issued`, [{ field, message: 'is not a valid event cursor' }]);
  }
  return position;
}

export const isAfter = (a: EventPosition, b: EventPosition) => a.tx > b.tx || (a.tx === b.tx && a.id > b.id);
