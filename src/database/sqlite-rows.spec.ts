import { describe, expect, it } from 'vitest';
import { loadSqliteDriver } from './sqlite-driver.js';
import { rowMaker } from './sqlite.dialect.js';

describe('rowMaker: the row objects of a statement, from its values', () => {
  const Database = loadSqliteDriver();

  /** The rows better-sqlite3 makes, and the rows made from its raw values. */
  function both(sql: string, ...params: unknown[]) {
    const db = new Database(':memory:');
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n REAL, b BLOB); INSERT INTO t VALUES (1, 'a\"b''c', 1.5, x'00ff'), (2, NULL, NULL, NULL)");
    const objects = db.prepare(sql).all(...params);
    const statement = db.prepare(sql);
    const toRow = rowMaker(statement.columns().map((column) => column.name));
    const made = toRow === null ? null : (statement.raw(true).all(...params) as unknown[][]).map(toRow);
    db.close();
    return { objects, made };
  }

  it('gives the objects better-sqlite3 gives: names, values, nulls, blobs, key order', () => {
    const { objects, made } = both(`SELECT id, name, n, b, id * 2 AS "double id", 1 AS "1", name AS "we'ird "" name" FROM t ORDER BY id`);
    expect(made).toEqual(objects);
    expect(made!.map((row) => Object.keys(row))).toEqual(objects.map((row) => Object.keys(row as object)));
    expect(Object.getPrototypeOf(made![0])).toBe(Object.prototype);
  });

  it('keeps the last of two columns with one name, as better-sqlite3 does', () => {
    const { objects, made } = both('SELECT id, name AS id FROM t WHERE id = ?', 1);
    expect(objects).toEqual([{ id: 'a"b\'c' }]);
    expect(made).toEqual(objects);
  });

  it('leaves a statement with a column named __proto__ to better-sqlite3 (it would set the prototype)', () => {
    expect(rowMaker(['id', '__proto__'])).toBeNull();
    const { made } = both('SELECT id AS "__proto__" FROM t');
    expect(made).toBeNull();
  });

  it('makes no code of a name: a name that looks like code is only a key', () => {
    const toRow = rowMaker(['"}; throw new Error("x"); ({"', 'a\u2028b'])!;
    expect(toRow([1, 2])).toEqual({ '"}; throw new Error("x"); ({"': 1, 'a\u2028b': 2 });
  });
});
