import { describe, expect, it } from 'vitest';
import { isPlainRead, parseLsn } from './read-route.js';

describe('isPlainRead', () => {
  it('takes SELECTs, columns named like writes included', () => {
    expect(isPlainRead('SELECT t.id, t.updated_at, t.deleted_at FROM posts t WHERE t.id = $1')).toBe(true);
    expect(isPlainRead('WITH recent AS (SELECT id FROM posts) SELECT * FROM recent')).toBe(true);
  });

  it('refuses writes, locks and functions that write', () => {
    expect(isPlainRead('UPDATE posts SET title = $1 WHERE id = $2')).toBe(false);
    expect(isPlainRead('WITH r AS (INSERT INTO posts (title) VALUES ($1) RETURNING *) SELECT * FROM r')).toBe(false);
    expect(isPlainRead('SELECT id FROM posts WHERE id = $1 FOR UPDATE')).toBe(false);
    expect(isPlainRead('SELECT id FROM events FOR UPDATE SKIP LOCKED')).toBe(false);
    expect(isPlainRead('SELECT pg_notify($1, $2)')).toBe(false);
    expect(isPlainRead('SELECT pg_advisory_xact_lock(1)')).toBe(false);
  });
});

describe('parseLsn', () => {
  it('orders WAL positions', () => {
    expect(parseLsn('0/16B3748')! < parseLsn('1/0')!).toBe(true);
    expect(parseLsn('A/FF')).toBe((10n << 32n) + 255n);
    expect(parseLsn(null)).toBeNull();
  });
});
