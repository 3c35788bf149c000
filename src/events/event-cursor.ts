import { DomainError } from '../common/errors/domain-error.js';

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

/** Opaque to clients: base64url of `e1:<tx>:<id>`. */
export function encodeEventCursor(position: EventPosition): string {
  return Buffer.from(`e1:${position.tx}:${position.id}`).toString('base64url');
}

export function decodeEventCursor(cursor: string, field = 'after'): EventPosition {
  const match = /^e1:(0|[1-9]\d{0,15}):(0|[1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const position = match ? { tx: Number(match[1]), id: Number(match[2]) } : null;
  if (!position || !Number.isSafeInteger(position.tx) || !Number.isSafeInteger(position.id) || encodeEventCursor(position) !== cursor) {
    throw DomainError.badInput(`${field} is not an event cursor this service issued`, [{ field, message: 'is not a valid event cursor' }]);
  }
  return position;
}

export const isAfter = (a: EventPosition, b: EventPosition) => a.tx > b.tx || (a.tx === b.tx && a.id > b.id);
