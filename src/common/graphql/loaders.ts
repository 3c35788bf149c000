import type DataLoader from 'dataloader';

/** Batch sizes stay well below the bind-parameter limits of SQLite and PostgreSQL. */
export const MAX_BATCH_SIZE = 500;

/** Results in the order of the keys, null where a row is missing (what DataLoader expects). */
export function inKeyOrder<T extends { id: number }>(ids: readonly number[], rows: readonly T[]): (T | null)[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * A resource's DataLoaders, as its feature module provides them (an injectable with `create`).
 * `create` gets the request's `Loaders`, so that one resource's loaders can prime another's
 * (comments loaded with their authors hand the authors to the users' loader).
 */
export interface LoaderSet<T> {
  create(loaders: Loaders): T;
}

/**
 * The DataLoaders of one GraphQL request (or of one subscription event): every read of a
 * related resource goes through them, so a page costs a constant number of SQL statements.
 * Each resource's set is created on first use.
 */
export class Loaders {
  private readonly sets = new Map<LoaderSet<unknown>, unknown>();

  of<T>(set: LoaderSet<T>): T {
    let loaders = this.sets.get(set) as T | undefined;
    if (loaders === undefined) {
      loaders = set.create(this);
      this.sets.set(set, loaders);
    }
    return loaders;
  }
}

/**
 * Rows read with a related row joined in (`row[property]`, e.g. a comment's author) hand that row
 * to its own loader, so resolving the relation costs no statement, and lose the property (the
 * relation is resolved through the loader, never read off the row).
 */
export function handOver<T extends object, R extends { id: number }>(rows: readonly T[], property: keyof T & string, loader: DataLoader<number, R | null>): void {
  for (const row of rows) {
    const related = row[property] as R | undefined;
    if (related) loader.prime(related.id, related);
    delete row[property];
  }
}

const PARTIAL = Symbol('partial related rows');

/**
 * Rows read with only some columns of a related row (what the request selects of a comment's
 * author): kept on each row for its own field resolver (`partialRelated`) and never handed to the
 * related resource's loader, whose rows are whole (another field may need any column of them).
 */
export function keepPartial<T extends object>(rows: readonly T[], property: keyof T & string): void {
  for (const row of rows) {
    const related = row[property];
    if (related) (row as Record<symbol, unknown>)[PARTIAL] = { [property]: related };
    delete row[property];
  }
}

/** The partial related row `keepPartial` kept on `row` under `property`, if any. */
export function partialRelated<R>(row: object, property: string): R | undefined {
  return ((row as Record<symbol, Record<string, R> | undefined>)[PARTIAL])?.[property];
}

/** Page-argument loaders exist once per distinct page request (a nested list's `first`). */
export function keyedBy<K, V>(create: (key: K) => V, keyOf: (key: K) => string): (key: K) => V {
  const byKey = new Map<string, V>();
  return (key) => {
    const name = keyOf(key);
    let value = byKey.get(name);
    if (value === undefined) {
      value = create(key);
      byKey.set(name, value);
    }
    return value;
  };
}
