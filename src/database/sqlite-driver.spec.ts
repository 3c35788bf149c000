import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadSqliteDriver } from './sqlite-driver.js';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

describe('loadSqliteDriver', () => {
  it(`loads the better-sqlite3 major that works on this Node (${process.versions.node})`, () => {
    const expected = major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';
    expect(loadSqliteDriver()).toBe(require(expected));
    const { version } = require(`${expected}/package.json`) as { version: string };
    expect(Number(version.split('.')[0])).toBe(major >= 22 ? 13 : 12);
  });

  it('opens a database and runs a statement', () => {
    const Database = loadSqliteDriver();
    const db = new Database(':memory:');
    try {
      expect(db.prepare('SELECT 40 + 2 AS answer').get()).toEqual({ answer: 42 });
    } finally {
      db.close();
    }
  });
});
