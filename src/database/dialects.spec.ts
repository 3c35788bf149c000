import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTGRES_SKIPPED, TEST_DATABASE_URL } from '../../test/support/databases.js';
import type { Dialect, Executor, LogPosition, Send } from '../common/persistence/dialect.js';
import { rowMaker } from '../common/persistence/codegen.js';
import { type Fragment, Renderer, sql } from '../common/persistence/sql-template.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { PostgresDialect } from './postgres.dialect.js';
import { SqliteDialect } from './sqlite.dialect.js';

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
    /** As Sql renders: a fragment into the dialect's placeholders and its parameters. */
    const renderer = new Renderer((index) => dialect.placeholder(index));
    /** Sql.rows's job, as the repositories send: the fragment rendered, on the pool or a transaction's executor. */
    const send: Send = async <R>(statement: Fragment, executor?: Executor) => {
      const { text, params } = renderer.render(statement);
      return (executor ? await executor.query(text, params) : await dialect.send(text, params)) as R[];
    };
    const names = async () => (await send<{ name: string }>(sql`SELECT name FROM items ORDER BY name`)).map((row) => row.name);
    const insertItem = (item: string, executor?: Executor) => send(sql`INSERT INTO items (name, created_at) VALUES (${item}, ${dialect.timestamp(at)})`, executor);
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

    it('renders a fragment in the placeholders the database takes, and sends the parameters in order', async () => {
      expect([1, 2, 10].map((index) => dialect.placeholder(index))).toEqual(name === 'sqlite' ? ['?', '?', '?'] : ['$1', '$2', '$10']);
      const rendered = renderer.render(sql`SELECT ${'a'}, ${sql.join([sql`${'b'}`, sql`${'c'}`])} WHERE x IN (${sql.in([1, 2])})`);
      expect(rendered).toEqual({
        text: name === 'sqlite' ? 'SELECT ?, ?, ? WHERE x IN (?, ?)' : 'SELECT $1, $2, $3 WHERE x IN ($4, $5)',
        params: ['a', 'b', 'c', 1, 2],
      });
      await insertItem('first');
      await insertItem('second');
      expect(await send(sql`SELECT name FROM items WHERE name = ${'second'} OR name = ${'first'} ORDER BY name DESC`)).toEqual([{ name: 'second' }, { name: 'first' }]);
      // The order of the parameters is the order of the values, also where one names the other's place.
      expect(await send(sql`SELECT name FROM items WHERE name IN (${sql.in(['first', 'second'])}) AND name <> ${'first'}`)).toEqual([{ name: 'second' }]);
    });

    it('binds booleans (SQLite stores them as 0 and 1)', async () => {
      const ts = dialect.timestamp(at);
      await send(sql`INSERT INTO items (name, flag, created_at) VALUES (${'yes'}, ${true}, ${ts}), (${'no'}, ${false}, ${ts})`);
      const rows = await send<{ name: string; flag: unknown }>(sql`SELECT name, flag FROM items ORDER BY name`);
      expect(rows).toEqual(name === 'sqlite' ? [{ name: 'no', flag: 0 }, { name: 'yes', flag: 1 }] : [{ name: 'no', flag: false }, { name: 'yes', flag: true }]);
    });

    it('stores a timestamp parameter so that it reads back as the same instant and compares in time order', async () => {
      const later = new Date(at.getTime() + 1);
      await send(sql`INSERT INTO items (name, created_at) VALUES (${'at'}, ${dialect.timestamp(at)}), (${'later'}, ${dialect.timestamp(later)})`);
      expect(await send(sql`SELECT name FROM items WHERE created_at > ${dialect.timestamp(at)}`)).toEqual([{ name: 'later' }]);
      const [row] = await send<{ created_at: unknown }>(sql`SELECT created_at FROM items WHERE name = ${'at'}`);
      // SQLite keeps TypeORM's UTC text for a datetime; PostgreSQL gives a Date (pg-timestamps).
      expect(name === 'sqlite' ? new Date(`${String(row.created_at).replace(' ', 'T')}Z`) : row.created_at).toEqual(at);
    });

    it('builds a JSON object in SQL: literals keyed, timestamps in ISO 8601', async () => {
      await insertItem("it's");
      const json = dialect.jsonObject([
        { key: 'name', expression: 'name', timestamp: false },
        { key: "the 'at'", expression: 'created_at', timestamp: true },
      ]);
      const [row] = await send<{ json: string }>(sql`SELECT ${sql.raw(json)} AS json FROM items`);
      const parsed = JSON.parse(row.json) as Record<string, string>;
      expect(Object.keys(parsed)).toEqual(['name', "the 'at'"]);
      expect(parsed.name).toBe("it's");
      expect(parsed["the 'at'"]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}/);
      expect(new Date(parsed["the 'at'"]).getTime()).toBe(at.getTime());
    });

    it('reads an array of texts from a subquery: every value, or empty when no row matches', async () => {
      for (const item of ['b', 'a', 'c, d']) await insertItem(item);
      const [all] = await send<{ v: unknown }>(sql`SELECT ${sql.raw(dialect.arrayOf('name', 'FROM items'))} AS v`);
      expect(dialect.readArray(all.v).sort()).toEqual(['a', 'b', 'c, d']);
      const [none] = await send<{ v: unknown }>(sql`SELECT ${sql.raw(dialect.arrayOf('name', "FROM items WHERE name = 'nothing'"))} AS v`);
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
      for (const [tx, id] of entries) await send(sql`INSERT INTO log (tx, id) VALUES (${name === 'sqlite' ? 0 : tx}, ${id})`);
      const read = async (direction: 'asc' | 'desc', after?: LogPosition) => {
        // A parameter before the condition: its own are numbered after it, as in the outbox's reads.
        const where = sql`id <> ${99} AND ${after ? dialect.eventsAfter(after) : sql`1 = 1`}`;
        const rows = await send<{ id: number }>(sql`SELECT id FROM log WHERE ${where} ORDER BY ${sql.raw(dialect.eventOrder(direction))}`);
        return rows.map((row) => Number(row.id));
      };
      expect(await read('asc')).toEqual([1, 2, 3, 4]);
      expect(await read('desc')).toEqual([4, 3, 2, 1]);
      expect(await read('asc', name === 'sqlite' ? { tx: 0, id: 2 } : { tx: 5, id: 2 })).toEqual([3, 4]);
      expect(await read('desc', name === 'sqlite' ? { tx: 0, id: 1 } : { tx: 5, id: 1 })).toEqual([4, 3, 2]);
    });

    it('commits a transaction, and rolls back one whose work throws: its writes are gone, the error is the work\u2019s', async () => {
      const ends: boolean[] = [];
      await dialect.transaction(async (manager) => {
        await insertItem('kept', manager);
        dialect.whenTransactionEnds((committed) => ends.push(committed));
      });
      const failure = new Error('the work failed');
      await expect(
        dialect.transaction(async (manager) => {
          await insertItem('dropped', manager);
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
        await insertItem('first', manager);
        await held;
        throw new Error('rolled back');
      });
      const second = dialect.transaction((manager) => insertItem('second', manager));
      const single = dialect.single(() => insertItem('single'));
      release();
      await expect(first).rejects.toThrow('rolled back');
      await Promise.all([second, single]);
      expect(await names()).toEqual(['second', 'single']);
    });

    it('locks the rows a transaction reads where the database has row locks', async () => {
      expect(dialect.lockRows()).toBe(name === 'sqlite' ? '' : ' FOR UPDATE');
      expect(dialect.lockRows({ of: 't', skipLocked: true })).toBe(name === 'sqlite' ? '' : ' FOR UPDATE OF t SKIP LOCKED');
      await insertItem('locked');
      const lock = sql.raw(dialect.lockRows({ of: 't', skipLocked: true }));
      const rows = await dialect.transaction((manager) => send(sql`SELECT t.name FROM items t WHERE t.name = ${'locked'}${lock}`, manager));
      expect(rows).toEqual([{ name: 'locked' }]);
    });

    it('reads the rows an UPDATE … RETURNING wrote, through a query runner', async () => {
      await insertItem('x');
      await insertItem('y');
      const { text, params } = renderer.render(sql`UPDATE items SET name = ${'z'} WHERE name = ${'x'} RETURNING name`);
      const result: unknown = await db.dataSource.manager.query(text, params);
      expect(dialect.writtenRows(result)).toEqual([{ name: 'z' }]);
    });

    it('inserts a row and its companion from the new row, atomically', async () => {
      const insert = (item: string) => sql`INSERT INTO items (name, created_at) VALUES (${item}, ${dialect.timestamp(at)}) RETURNING id, name`;
      const companion = (label: string) => (source: Fragment) => sql`INSERT INTO item_log (item_id, name) SELECT r.id, ${label} || r.name FROM ${source}`;
      const row = await dialect.insertWith(insert('parent'), 'items', [companion('log of ')], send);
      expect(row).toEqual({ id: expect.anything(), name: 'parent' });
      const logged = await send<{ item_id: number; name: string }>(sql`SELECT item_id, name FROM item_log`);
      expect(logged.map((entry) => [Number(entry.item_id), entry.name])).toEqual([[Number(row.id), 'log of parent']]);
      // The companion breaks a constraint: the row is not written either.
      await expect(dialect.insertWith(insert('orphan'), 'items', [companion('a label far too long for the check ')], send)).rejects.toThrow();
      expect(await names()).toEqual(['parent']);
      expect(await send(sql`SELECT name FROM item_log`)).toHaveLength(1);
      // Two companions: each reads the new row (not the row the first one wrote); the second failing takes all back.
      const second = await dialect.insertWith(insert('twin'), 'items', [companion('a: '), companion('b: ')], send);
      const twins = await send<{ item_id: number; name: string }>(sql`SELECT item_id, name FROM item_log WHERE item_id = ${second.id} ORDER BY name`);
      expect(twins.map((entry) => [Number(entry.item_id), entry.name])).toEqual([
        [Number(second.id), 'a: twin'],
        [Number(second.id), 'b: twin'],
      ]);
      await expect(dialect.insertWith(insert('half'), 'items', [companion('ok: '), companion('a label far too long for the check ')], send)).rejects.toThrow();
      expect(await names()).toEqual(['parent', 'twin']);
      expect(await send(sql`SELECT name FROM item_log`)).toHaveLength(3);
    });

    it('keeps sending once past the prepared statements it keeps (500 distinct texts)', async () => {
      await insertItem('in');
      for (let index = 0; index < 505; index += 1) {
        expect(await send(sql`SELECT name, ${sql.raw(String(index))} AS n FROM items WHERE name = ${'in'}`)).toEqual([{ name: 'in', n: index }]);
      }
    });

    if (name === 'sqlite') {
      it('has no statement timeout: a bounded read is a read, and no error is its timeout', async () => {
        await insertItem('bounded');
        const { text, params } = renderer.render(sql`SELECT name FROM items WHERE name = ${'bounded'}`);
        expect(await dialect.sendBounded(text, params, 1)).toEqual([{ name: 'bounded' }]);
        expect(dialect.isTimeout(Object.assign(new Error('canceling statement'), { code: '57014' }))).toBe(false);
        expect(dialect.shared).toBe(false);
        expect(dialect.notify('test', 'x')).toBeNull();
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
        const settings = await Promise.all([1, 2, 3, 4].map(() => send<{ timeout: string }>(sql`SELECT current_setting(${'statement_timeout'}) AS timeout`)));
        for (const [row] of settings) expect(row.timeout).not.toBe('50ms');
      });

      it('hears what it announces on the channels it listens to', async () => {
        let heard!: (payload: string | undefined) => void;
        const payload = new Promise<string | undefined>((resolve) => (heard = resolve));
        let upped!: () => void;
        const up = new Promise<void>((resolve) => (upped = resolve));
        const listener = dialect.listen('dialect-spec', ['dialect_spec'], { notification: (channel, text) => channel === 'dialect_spec' && heard(text), up: upped, down: () => undefined });
        try {
          await up;
          const notify = dialect.notify('dialect_spec', 'hello');
          expect(notify).not.toBeNull();
          await send(notify!);
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
