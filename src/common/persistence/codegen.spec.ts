import 'reflect-metadata';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../database/sqlite-driver.js';
import { ResourceDefinition, type ResourceSpec } from '../resource/resource-definition.js';
import { compileView, mapperSource, rowMaker, viewSource } from './codegen.js';
import { EntityTable, toDate } from './entity-table.js';

/** A synthetic entity with one column of every kind the generators tell apart. */
@Entity({ name: 'gadgets' })
class Gadget {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 80 })
  name: string;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId: number;

  @Column({ type: 'boolean', default: false })
  shiny: boolean;

  @Column({ name: 'serviced_at', type: Date, nullable: true })
  servicedAt: Date | null;

  @Column({ name: 'secret_code', type: 'varchar', select: false, nullable: true })
  secretCode?: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt: Date;

  @VersionColumn({ default: 1 })
  version: number;

  /** Computed beside the columns (as a post's tags). */
  parts?: string[];
}

/** What toDate did before its fast path: the text made ISO and parsed by Date. */
const generic = (text: string) => new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);

describe('toDate', () => {
  it.each(['2026-11-25 03:41:13.262', '1999-12-31 23:59:59.999', '2024-02-29 00:00:00.000', '1970-01-01 00:00:00.001'])('reads the SQLite form %s as Date does', (text) => {
    expect(toDate(text).getTime()).toBe(generic(text).getTime());
  });

  it.each(['2026-11-25T03:41:13.262Z', '2026-11-25 03:41:13', '0999-01-01 00:00:00.000', '2026-13-45 99:99:99.999', '2026x11-25 03:41:13.262', 'not a date at all ok!!'])(
    'leaves any other text (%s) to Date',
    (text) => {
      expect(String(toDate(text))).toBe(String(generic(text)));
    },
  );

  it('passes a Date through', () => {
    const date = new Date();
    expect(toDate(date)).toBe(date);
  });
});

describe('the row mapper (EntityTable)', () => {
  let dataSource: DataSource;
  let gadgets: EntityTable<Gadget>;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:', driver: loadSqliteDriver(), entities: [Gadget] }).initialize();
    gadgets = new EntityTable(dataSource.getMetadata(Gadget));
  });
  afterAll(() => dataSource.destroy());

  it('is straight-line code, one line per readable column, timestamps and booleans read whichever the driver (this is the code that runs)', () => {
    expect(mapperSource(gadgets.columns)).toBe(
      [
        'const e = create();',
        'let v;',
        'e["id"] = row["id"];',
        'e["name"] = row["name"];',
        'e["ownerId"] = row["owner_id"];',
        'v = row["shiny"]; e["shiny"] = v !== null ? Boolean(v) : v;',
        'v = row["serviced_at"]; e["servicedAt"] = v !== null ? toDate(v) : v;',
        'v = row["created_at"]; e["createdAt"] = v !== null ? toDate(v) : v;',
        'v = row["updated_at"]; e["updatedAt"] = v !== null ? toDate(v) : v;',
        'e["version"] = row["version"];',
        'return e;',
      ].join('\n'),
    );
    expect(mapperSource(gadgets.columns, 'j_')).toContain('e["ownerId"] = row["j_owner_id"];');
    expect(gadgets.hiddenColumns.map((column) => column.property)).toEqual(['secretCode']);
  });

  it('reads a row, a joined row by its prefix, and a partial row into entities', () => {
    const row = { id: 7, name: 'N', owner_id: 2, shiny: 1, serviced_at: null, created_at: '2026-11-25 03:41:13.262', updated_at: '2026-11-25 03:41:14.000', version: 3 };
    const gadget = gadgets.fromRow(row);
    expect(gadget).toBeInstanceOf(Gadget);
    expect({ ...gadget }).toEqual({ id: 7, name: 'N', ownerId: 2, shiny: true, servicedAt: null, createdAt: new Date('2026-11-25T03:41:13.262Z'), updatedAt: new Date('2026-11-25T03:41:14Z'), version: 3 });
    const joined = gadgets.fromRow(Object.fromEntries(Object.entries(row).map(([key, value]) => [`j_${key}`, value])), 'j_');
    expect({ ...joined }).toEqual({ ...gadget });
    expect({ ...gadgets.fromRow({ id: 7, name: 'N' }, '', ['id', 'name']) }).toEqual({ id: 7, name: 'N' });
    expect(gadgets.selectList('t', '', ['id', 'name'])).toBe('t.id, t.name');
    expect(() => gadgets.selectList('t', '', ['secretCode'])).toThrow(/no readable column/);
  });

  it('makes no code of a name: a name that looks like code is only a key', () => {
    const columns = [{ property: '"]; throw new Error("x"); ["', name: 'a\u2028b', timestamp: false, boolean: false }];
    expect(mapperSource(columns)).toContain('e["\\"]; throw new Error(\\"x\\"); [\\""] = row["a\u2028b"];');
  });
});

describe('the view (ResourceDefinition)', () => {
  const spec = {
    kind: 'gadget',
    plural: 'gadgets',
    entity: Gadget,
    links: (gadget: Gadget) => ({ owner: { href: `/users/${gadget.ownerId}` } }),
    privateFields: ['shiny'],
    computed: { parts: { schema: { type: 'array', items: { type: 'string' } }, xmlItem: 'part' } },
    html: { page: '', list: '', title: () => '' },
  };
  const gadgets = new ResourceDefinition(spec as unknown as ResourceSpec<Gadget>);
  const fields = [
    { property: 'id', timestamp: false },
    { property: 'name', timestamp: false },
    { property: 'servicedAt', timestamp: true },
  ];

  it('is one object literal: fields (timestamps in ISO 8601), the computed ones, then the links (this is the code that runs)', () => {
    expect(viewSource(fields, ['parts'])).toBe('return { "id": s["id"], "name": s["name"], "servicedAt": iso(s["servicedAt"]), "parts": s["parts"], _links: definition.links(s) };');
    const view = compileView<object, { links: () => object }, object>((value) => `iso:${String(value)}`, fields);
    expect(view({ id: 1, name: 'N', servicedAt: 5 }, { links: () => ({ self: 'x' }) })).toEqual({ id: 1, name: 'N', servicedAt: 'iso:5', _links: { self: 'x' } });
  });

  it("shows a resource's fields but the secret, the version and the private ones, computed fields after them, and its links", () => {
    const gadget = Object.assign(new Gadget(), { id: 7, name: 'N', ownerId: 2, shiny: true, servicedAt: null, secretCode: 's', createdAt: new Date(0), updatedAt: new Date(1000), version: 3, parts: ['a'] });
    const view = gadgets.view(gadget);
    expect(view).toEqual({
      id: 7,
      name: 'N',
      ownerId: 2,
      servicedAt: null,
      createdAt: '1970-01-01T00:00:00.000Z',
      updatedAt: '1970-01-01T00:00:01.000Z',
      parts: ['a'],
      _links: { self: { href: '/gadgets/7' }, owner: { href: '/users/2' } },
    });
    expect(Object.keys(view).slice(-2)).toEqual(['parts', '_links']);
    const revealed = gadgets.view(gadget, true);
    expect(revealed.shiny).toBe(true);
    expect(Object.keys(revealed).at(-1)).toBe('_links');
  });

  it('declares computed fields required in the schema of reads but not in the snapshot of the event log (which may have none), private ones nowhere required', () => {
    expect(gadgets.schema.properties?.parts).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(gadgets.schema.required).toContain('parts');
    expect(gadgets.schema.required).not.toContain('shiny');
    expect(gadgets.schema.required?.at(-1)).toBe('_links');
    expect(gadgets.snapshotSchema.required).not.toContain('parts');
    expect(gadgets.xmlItem('parts')).toBe('part');
    expect(gadgets.xmlItem('name')).toBeUndefined();
  });
});

describe('the row maker (SQLite statements: row objects from their values)', () => {
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
