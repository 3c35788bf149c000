/**
 * The code the service generates at start-up, in one place: the row mapper (a row → an
 * entity, EntityTable), the view (an entity → its representation, ResourceDefinition) and the
 * row maker (a SQLite statement's values → its row object, SqliteDialect). Each is straight-line
 * code compiled once with `new Function`, rather than a loop over the columns: a loop's computed
 * keys are a megamorphic property access per field and row, measured slower on a page of 20
 * posts by bench/mappers.mjs. Every name written into the code comes from the entities'
 * decorators or a statement's columns and is quoted with JSON.stringify: it can be a key and
 * nothing else. codegen.spec.ts pins the code made for a synthetic entity.
 */

/** A column as the row mapper reads it. */
export interface MappedColumn {
  /** The entity's property. */
  property: string;
  /** The column in the database (with the mapper's prefix, the row's key). */
  name: string;
  /** Read back as a Date whichever the driver. */
  timestamp: boolean;
  /** Read back as true/false whichever the driver (SQLite stores 0/1). */
  boolean: boolean;
}

/**
 * The body of a row mapper (`row` → a new entity from `create()`), one line per column:
 *
 *   const e = create();
 *   let v;
 *   e["id"] = row["id"];
 *   v = row["created_at"]; e["createdAt"] = v !== null ? toDate(v) : v;
 *   return e;
 */
export function mapperSource(columns: readonly MappedColumn[], prefix = ''): string {
  const lines = columns.map((column) => {
    const source = `row[${JSON.stringify(prefix + column.name)}]`;
    const target = `e[${JSON.stringify(column.property)}]`;
    if (column.timestamp) return `v = ${source}; ${target} = v !== null ? toDate(v) : v;`;
    if (column.boolean) return `v = ${source}; ${target} = v !== null ? Boolean(v) : v;`;
    return `${target} = ${source};`;
  });
  return ['const e = create();', 'let v;', ...lines, 'return e;'].join('\n');
}

/** The row mapper, compiled from `mapperSource`. */
export function compileMapper<T>(create: () => T, toDate: (value: unknown) => Date, columns: readonly MappedColumn[], prefix = ''): (row: Record<string, unknown>) => T {
  const factory = new Function('create', 'toDate', `return function fromRow(row) {\n${mapperSource(columns, prefix)}\n};`);
  return factory(create, toDate) as (row: Record<string, unknown>) => T;
}

/** A field of a view: a timestamp is written in ISO 8601. */
export interface ViewField {
  property: string;
  timestamp: boolean;
}

/**
 * The body of a view (`s` the item, `definition` what makes its links), one object literal:
 *
 *   return { "id": s["id"], "createdAt": iso(s["createdAt"]), "tags": s["tags"], _links: definition.links(s) };
 *
 * `computed` (values the repository sets beside the columns) come after the fields.
 */
export function viewSource(fields: readonly ViewField[], computed: readonly string[] = []): string {
  const members = fields.map((field) => {
    const name = JSON.stringify(field.property);
    return `${name}: ${field.timestamp ? `iso(s[${name}])` : `s[${name}]`}`;
  });
  for (const property of computed) members.push(`${JSON.stringify(property)}: s[${JSON.stringify(property)}]`);
  return `return { ${[...members, '_links: definition.links(s)'].join(', ')} };`;
}

/** The view, compiled from `viewSource`. */
export function compileView<T, D, V>(iso: (value: unknown) => unknown, fields: readonly ViewField[], computed: readonly string[] = []): (item: T, definition: D) => V {
  const factory = new Function('iso', `return function view(s, definition) {\n${viewSource(fields, computed)}\n};`);
  return factory(iso) as (item: T, definition: D) => V;
}

/**
 * A function that makes the row object of a statement's values: `{"id": v[0], "title": v[1], …}`.
 * better-sqlite3 builds each row object in C++, one property at a time, which cost more than
 * reading the rows (a page of 21 posts: 44 µs as objects, 27 µs as arrays made into objects
 * here); an object literal of fixed keys is made by V8 from one template, and every row of the
 * statement shares its shape. As in better-sqlite3, of two columns with one name the last wins.
 * Null where a name would set the prototype instead (`__proto__`): such a statement's rows stay
 * better-sqlite3's own.
 */
export function rowMaker(columns: readonly string[]): ((values: unknown[]) => Record<string, unknown>) | null {
  if (columns.includes('__proto__')) return null;
  const members = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${members.join(', ')} };`) as (values: unknown[]) => Record<string, unknown>;
}
