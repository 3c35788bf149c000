import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES_SKIPPED, TEST_DATABASE_URL } from '../../test/support/databases.js';
import type { Dialect, Executor, Send } from '../common/persistence/dialect.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { PostgresDialect } from './postgres.dialect.js';
import { rowMaker, SqliteDialect } from './sqlite.dialect.js';

/**
 * The dialects on their databases, without Nest: a SQLite file and, when TEST_DATABASE_URL is
 * set, a fresh PostgreSQL database, each opened with the service's own DataSource options. One
 * set of cases runs on both, so what the rest of the code assumes of "a dialect" holds on each.
 */

interface Opened {
  dataSource: DataSource;
  dialect: Dialect;
  close(): Promise<void>;
}

async function openSqlite(): Promise<Opened> {
  const path = join(tmpdir(), `blog_dialect_${process.pid}_${randomBytes(4).toString('hex')}.sqlite`);
  const dataSource = new DataSource({ ...buildDataSourceOptions({ type: 'sqlite', url: path }), entities: [], migrations: [] });
  await dataSource.initialize();
  await dataSource.query('CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, flag INTEGER, created_at DATETIME NOT NULL)');
  await dataSource.query('CREATE TABLE item_log (item_id INTEGER NOT NULL REFERENCES items (id), name TEXT NOT NULL CHECK (length(name) < 20))');
  await dataSource.query('CREATE TABLE log (tx INTEGER NOT NULL, id INTEGER NOT NULL)');
  return {
    dataSource,
    dialect: new SqliteDialect(dataSource),
    close: async () => {
      await dataSource.destroy();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    },
  };
}

async function openPostgres(serverUrl: string): Promise<Opened> {
  const name = `blog_dialect_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = async (text: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dataSource = new DataSource({ ...buildDataSourceOptions({ type: 'postgres', url: url.toString() }, { poolSize: 4 }), entities: [], migrations: [] });
  await dataSource.initialize();
  await dataSource.query('CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL UNIQUE, flag boolean, created_at timestamptz NOT NULL)');
  await dataSource.query('CREATE TABLE item_log (item_id integer NOT NULL REFERENCES items (id), name text NOT NULL CHECK (length(name) < 20))');
  await dataSource.query('CREATE TABLE log (tx bigint NOT NULL, id integer NOT NULL)');
  return {
    dataSource,
    dialect: new PostgresDialect(dataSource),
    close: async () => {
      await dataSource.destroy();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

const DIALECTS: { name: 'sqlite' | 'postgres'; open: () => Promise<Opened>; skipped?: string }[] = [
  { name: 'sqlite', open: openSqlite },
  { name: 'postgres', open: () => openPostgres(TEST_DATABASE_URL!), skipped: POSTGRES_SKIPPED },
];

for (const { name, open, skipped } of DIALECTS) {
  describe.skipIf(skipped !== undefined)(`the ${name} dialect on a real database${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
    let db: Opened;
    let dialect: Dialect;
    /** Sql.rows's job, as the repositories send: the statement adapted, on the pool or a transaction's executor. */
    const send: Send = async <R>(text: string, params: readonly unknown[], executor?: Executor) =>
      (executor ? await executor.query(dialect.statement(text), [...params]) : await dialect.send(dialect.statement(text), params)) as R[];
    const names = async () => (await send<{ name: string }>('SELECT name FROM items ORDER BY name', [])).map((row) => row.name);
    const at = new Date('2026-11-25T03:41:13.262Z');

    beforeAll(async () => {
      db = await open();
      dialect = db.dialect;
    });
    afterAll(() => db?.close());
    beforeEach(async () => {
      await db.dataSource.query('DELETE FROM item_log');
      await db.dataSource.query('DELETE FROM items');
      await db.dataSource.query('DELETE FROM log');
    });

    it('adapts `$1, $2, …` to what the database takes, and sends the parameters in order', async () => {
      expect(dialect.statement('SELECT $1, $2 WHERE $10')).toBe(name === 'sqlite' ? 'SELECT ?, ? WHERE ?' : 'SELECT $1, $2 WHERE $10');
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['first', dialect.timestamp(at)]);
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['second', dialect.timestamp(at)]);
      expect(await send('SELECT name FROM items WHERE name = $1 OR name = $2 ORDER BY name DESC', ['second', 'first'])).toEqual([{ name: 'second' }, { name: 'first' }]);
    });

    it('binds booleans (SQLite stores them as 0 and 1)', async () => {
      await send('INSERT INTO items (name, flag, created_at) VALUES ($1, $2, $3), ($4, $5, $6)', ['yes', true, dialect.timestamp(at), 'no', false, dialect.timestamp(at)]);
      const rows = await send<{ name: string; flag: unknown }>('SELECT name, flag FROM items ORDER BY name', []);
      expect(rows).toEqual(name === 'sqlite' ? [{ name: 'no', flag: 0 }, { name: 'yes', flag: 1 }] : [{ name: 'no', flag: false }, { name: 'yes', flag: true }]);
    });

    it('stores a timestamp parameter so that it reads back as the same instant and compares in time order', async () => {
      const later = new Date(at.getTime() + 1);
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2), ($3, $4)', ['at', dialect.timestamp(at), 'later', dialect.timestamp(later)]);
      expect(await send('SELECT name FROM items WHERE created_at > $1', [dialect.timestamp(at)])).toEqual([{ name: 'later' }]);
      const [row] = await send<{ created_at: unknown }>('SELECT created_at FROM items WHERE name = $1', ['at']);
      // SQLite keeps TypeORM's UTC text for a datetime; PostgreSQL gives a Date (pg-timestamps).
      expect(name === 'sqlite' ? new Date(`${String(row.created_at).replace(' ', 'T')}Z`) : row.created_at).toEqual(at);
    });

    it('builds a JSON object in SQL: literals keyed, timestamps in ISO 8601', async () => {
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ["it's", dialect.timestamp(at)]);
      const json = dialect.jsonObject([
        { key: 'name', expression: 'name', timestamp: false },
        { key: "the 'at'", expression: 'created_at', timestamp: true },
      ]);
      const [row] = await send<{ json: string }>(`SELECT ${json} AS json FROM items`, []);
      const parsed = JSON.parse(row.json) as Record<string, string>;
      expect(Object.keys(parsed)).toEqual(['name', "the 'at'"]);
      expect(parsed.name).toBe("it's");
      expect(parsed["the 'at'"]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}/);
      expect(new Date(parsed["the 'at'"]).getTime()).toBe(at.getTime());
    });

    it('reads an array of texts from a subquery: every value, or empty when no row matches', async () => {
      for (const item of ['b', 'a', 'c, d']) await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', [item, dialect.timestamp(at)]);
      const [all] = await send<{ v: unknown }>(`SELECT ${dialect.arrayOf('name', 'FROM items')} AS v`, []);
      expect(dialect.readArray(all.v).sort()).toEqual(['a', 'b', 'c, d']);
      const [none] = await send<{ v: unknown }>(`SELECT ${dialect.arrayOf('name', "FROM items WHERE name = 'nothing'")} AS v`, []);
      expect(dialect.readArray(none.v)).toEqual([]);
    });

    it('orders the log and reads past a position with the conditions it writes', async () => {
      const entries = [
        [7, 3],
        [5, 1],
        [5, 2],
        [7, 4],
      ];
      // SQLite's single writer leaves every tx at 0; PostgreSQL's are transaction ids.
      for (const [tx, id] of entries) await send('INSERT INTO log (tx, id) VALUES ($1, $2)', [name === 'sqlite' ? 0 : tx, id]);
      const read = async (direction: 'asc' | 'desc', after?: { tx: number; id: number }) => {
        const where = after ? dialect.eventsAfter(after, 1) : { condition: '1 = 1', params: [] };
        const rows = await send<{ id: number }>(`SELECT id FROM log WHERE ${where.condition} ORDER BY ${dialect.eventOrder(direction)}`, where.params);
        return rows.map((row) => Number(row.id));
      };
      expect(await read('asc')).toEqual([1, 2, 3, 4]);
      expect(await read('desc')).toEqual([4, 3, 2, 1]);
      expect(await read('asc', name === 'sqlite' ? { tx: 0, id: 2 } : { tx: 5, id: 2 })).toEqual([3, 4]);
    });

    it('commits a transaction, and rolls back one whose work throws: its writes are gone, the error is the work\u2019s', async () => {
      const ends: boolean[] = [];
      await dialect.transaction(async (manager) => {
        await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['kept', dialect.timestamp(at)], manager);
        dialect.whenTransactionEnds((committed) => ends.push(committed));
      });
      const failure = new Error('the work failed');
      await expect(
        dialect.transaction(async (manager) => {
          await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['dropped', dialect.timestamp(at)], manager);
          dialect.whenTransactionEnds((committed) => ends.push(committed));
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await names()).toEqual(['kept']);
      // SQLite's transactions are its own and tell how they end; PostgreSQL's are shared with other instances, which do not.
      expect(ends).toEqual(name === 'sqlite' ? [true, false] : []);
      expect(dialect.whenTransactionEnds(() => undefined)).toBe(false);
    });

    it('keeps concurrent transactions apart: one rolled back never takes another\u2019s write with it', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = dialect.transaction(async (manager) => {
        await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['first', dialect.timestamp(at)], manager);
        await held;
        throw new Error('rolled back');
      });
      const second = dialect.transaction((manager) => send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['second', dialect.timestamp(at)], manager));
      const single = dialect.single(() => send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['single', dialect.timestamp(at)]));
      release();
      await expect(first).rejects.toThrow('rolled back');
      await Promise.all([second, single]);
      expect(await names()).toEqual(['second', 'single']);
    });

    it('locks the rows a transaction reads where the database has row locks', async () => {
      expect(dialect.lockRows()).toBe(name === 'sqlite' ? '' : ' FOR UPDATE');
      expect(dialect.lockRows({ of: 't', skipLocked: true })).toBe(name === 'sqlite' ? '' : ' FOR UPDATE OF t SKIP LOCKED');
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['locked', dialect.timestamp(at)]);
      const rows = await dialect.transaction((manager) => send(`SELECT t.name FROM items t WHERE t.name = $1${dialect.lockRows({ of: 't', skipLocked: true })}`, ['locked'], manager));
      expect(rows).toEqual([{ name: 'locked' }]);
    });

    it('reads the rows an UPDATE … RETURNING wrote, through a query runner', async () => {
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2), ($3, $4)', ['x', dialect.timestamp(at), 'y', dialect.timestamp(at)]);
      const result = await db.dataSource.manager.query(dialect.statement('UPDATE items SET name = $1 WHERE name = $2 RETURNING name'), ['z', 'x']);
      expect(dialect.writtenRows(result)).toEqual([{ name: 'z' }]);
    });

    it('inserts a row and its companion from the new row, atomically', async () => {
      const insert = { text: 'INSERT INTO items (name, created_at) VALUES ($1, $2) RETURNING id, name', params: ['parent', dialect.timestamp(at)] };
      const companion = (label: string) => (source: string, next: number) => ({
        text: `INSERT INTO item_log (item_id, name) SELECT r.id, $${next} || r.name FROM ${source}`,
        params: [label],
      });
      const row = await dialect.insertWith(insert, 'items', companion('log of '), send);
      expect(row).toEqual({ id: expect.anything(), name: 'parent' });
      const logged = await send<{ item_id: number; name: string }>('SELECT item_id, name FROM item_log', []);
      expect(logged.map((entry) => [Number(entry.item_id), entry.name])).toEqual([[Number(row.id), 'log of parent']]);
      // The companion breaks a constraint: the row is not written either.
      await expect(dialect.insertWith({ ...insert, params: ['orphan', dialect.timestamp(at)] }, 'items', companion('a label far too long for the check '), send)).rejects.toThrow();
      expect(await names()).toEqual(['parent']);
      expect(await send('SELECT name FROM item_log', [])).toHaveLength(1);
    });

    it('keeps sending once past the prepared statements it keeps (500 distinct texts)', async () => {
      await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['in', dialect.timestamp(at)]);
      for (let index = 0; index < 505; index += 1) {
        expect(await send(`SELECT name, ${index} AS n FROM items WHERE name = $1`, ['in'])).toEqual([{ name: 'in', n: index }]);
      }
    });

    if (name === 'sqlite') {
      it('has no statement timeout: a bounded read is a read, and no error is its timeout', async () => {
        await send('INSERT INTO items (name, created_at) VALUES ($1, $2)', ['bounded', dialect.timestamp(at)]);
        expect(await dialect.sendBounded(dialect.statement('SELECT name FROM items WHERE name = $1'), ['bounded'], 1)).toEqual([{ name: 'bounded' }]);
        expect(dialect.isTimeout(Object.assign(new Error('canceling statement'), { code: '57014' }))).toBe(false);
        expect(dialect.shared).toBe(false);
        expect(dialect.notify).toBeNull();
        expect(dialect.eventsVisible).toBeNull();
        expect(dialect.listen('test', ['x'], { notification: () => undefined, up: () => undefined, down: () => undefined })).toBeNull();
      });
    } else {
      it('cancels a bounded read past its time (isTimeout), and the pool still answers afterwards', async () => {
        const error = await Promise.resolve(dialect.sendBounded('SELECT pg_sleep(5)', [], 50)).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeDefined();
        expect(dialect.isTimeout(error)).toBe(true);
        expect(dialect.isTimeout(new Error('other'))).toBe(false);
        expect(await dialect.sendBounded('SELECT 1 AS one', [], 5000)).toEqual([{ one: 1 }]);
        // The timeout was local to the bounded read's transaction (SET LOCAL): the pooled connections keep their own.
        const settings = await Promise.all([1, 2, 3, 4].map(() => dialect.send('SELECT current_setting($1) AS timeout', ['statement_timeout'])));
        for (const [row] of settings as { timeout: string }[][]) expect(row.timeout).not.toBe('50ms');
      });

      it('hears what it announces on the channels it listens to', async () => {
        let heard!: (payload: string | undefined) => void;
        const payload = new Promise<string | undefined>((resolve) => (heard = resolve));
        let upped!: () => void;
        const up = new Promise<void>((resolve) => (upped = resolve));
        const listener = dialect.listen('dialect-spec', ['dialect_spec'], { notification: (channel, text) => channel === 'dialect_spec' && heard(text), up: upped, down: () => undefined });
        try {
          await up;
          await dialect.send(dialect.notify!, ['dialect_spec', 'hello']);
          expect(await payload).toBe('hello');
        } finally {
          await listener?.close();
        }
      });
    }
  });
}

describe('rowMaker', () => {
  it('makes an object of fixed keys from a row of values; the last of two equal names wins', () => {
    expect(rowMaker(['id', 'title', 'id'])!([1, 'x', 2])).toEqual({ id: 2, title: 'x' });
    expect(rowMaker(['a "quoted" name'])!([1])).toEqual({ 'a "quoted" name': 1 });
  });

  it('is null where a name would set the prototype', () => {
    expect(rowMaker(['id', '__proto__'])).toBeNull();
  });
});
