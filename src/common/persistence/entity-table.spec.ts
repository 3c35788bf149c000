import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../database/sqlite-driver.js';
import { Post } from '../../posts/post.entity.js';
import { User } from '../../users/user.entity.js';
import { EntityTable, toDate } from './entity-table.js';

/** What toDate did before its fast path: the text made ISO and parsed by Date. */
const generic = (text: string) => new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);

describe('toDate', () => {
  it.each(['2026-11-25 03:41:13.262', '1999-12-31 23:59:59.999', '2024-02-29 00:00:00.000', '1970-01-01 00:00:00.001'])(
    'reads the SQLite form %s as Date does',
    (text) => {
      expect(toDate(text).getTime()).toBe(generic(text).getTime());
    },
  );

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

describe('EntityTable', () => {
  let dataSource: DataSource;
  let posts: EntityTable<Post>;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'better-sqlite3', database: ':memory:', driver: loadSqliteDriver(), entities: [Post, User] }).initialize();
    posts = new EntityTable(dataSource.getMetadata(Post));
  });
  afterAll(() => dataSource.destroy());

  it('maps a row with generated straight-line code, one line per column (this is the code that runs)', () => {
    expect(posts.mapperSource()).toBe(
      [
        'const e = create();',
        'let v;',
        'e["id"] = row["id"];',
        'e["title"] = row["title"];',
        'e["body"] = row["body"];',
        'e["authorId"] = row["author_id"];',
        'e["status"] = row["status"];',
        'v = row["publish_at"]; e["publishAt"] = v !== null ? toDate(v) : v;',
        'v = row["published_at"]; e["publishedAt"] = v !== null ? toDate(v) : v;',
        'v = row["trashed_at"]; e["trashedAt"] = v !== null ? toDate(v) : v;',
        'v = row["created_at"]; e["createdAt"] = v !== null ? toDate(v) : v;',
        'v = row["updated_at"]; e["updatedAt"] = v !== null ? toDate(v) : v;',
        'e["version"] = row["version"];',
        'return e;',
      ].join('\n'),
    );
    expect(posts.mapperSource('j_')).toContain('e["authorId"] = row["j_author_id"];');
  });

  it('reads a row, and a joined row by its prefix, into entities', () => {
    const row = { id: 7, title: 'T', body: 'B', author_id: 2, status: 'draft', publish_at: null, published_at: '2026-11-25 03:41:13.262', trashed_at: null, created_at: '2026-11-25 03:41:13.262', updated_at: '2026-11-25 03:41:14.000', version: 3 };
    const post = posts.fromRow(row);
    expect(post).toBeInstanceOf(Post);
    expect({ ...post }).toEqual({
      id: 7, title: 'T', body: 'B', authorId: 2, status: 'draft', publishAt: null, publishedAt: new Date('2026-11-25T03:41:13.262Z'), trashedAt: null, createdAt: new Date('2026-11-25T03:41:13.262Z'), updatedAt: new Date('2026-11-25T03:41:14Z'), version: 3,
    });
    const joined = posts.fromRow(Object.fromEntries(Object.entries(row).map(([key, value]) => [`j_${key}`, value])), 'j_');
    expect({ ...joined }).toEqual({ ...post });
  });
});
