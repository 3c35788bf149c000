/**
 * `node bench/mappers.mjs` (after npm run build): the generated row mapper and view
 * (EntityTable.mapperSource, ResourceDefinition.viewSource) against plain loops over the columns,
 * on a page of 20 posts, in one process, interleaved; best and median of 21 runs of 5,000 pages.
 */
import 'reflect-metadata';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { out } from './shared.mjs';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'src');
const load = async (file) => import(pathToFileURL(path.join(DIST, file)).href);
const { EntityTable, toDate } = await load('common/persistence/entity-table.js');
const { POST_RESOURCE: definition } = await load('posts/post.resource.js');
const { Post } = await load('posts/post.entity.js');

// What EntityTable reads of TypeORM's metadata, for the posts table.
const metadata = {
  tableName: 'posts',
  name: 'Post',
  target: Post,
  columns: [
    ['id', 'id', 'integer'],
    ['title', 'title', 'varchar'],
    ['body', 'body', 'text'],
    ['authorId', 'author_id', 'integer'],
    ['createdAt', 'created_at', Date],
    ['updatedAt', 'updated_at', Date],
    ['version', 'version', 'integer', true],
  ].map(([propertyName, databaseName, type, isVersion = false]) => ({ propertyName, databaseName, type, isVersion, isSelect: true, isNullable: false })),
};
const table = new EntityTable(metadata);
const rows = Array.from({ length: 20 }, (_, i) => ({
  id: 2000 - i, title: `Post ${i}`, body: 'x'.repeat(1000), author_id: (i % 200) + 1,
  created_at: '2026-11-25 03:41:13.262', updated_at: '2026-11-25 03:41:13.262', version: 1,
}));
const items = rows.map((row) => table.fromRow(row));

// The plain versions: loops over the columns with computed keys.
const columns = table.columns.map((column) => ({ key: column.name, property: column.property, timestamp: column.timestamp }));
const fields = table.fields.map((column) => ({ property: column.property, timestamp: column.timestamp }));
function plainFromRow(row) {
  const entity = new Post();
  for (const column of columns) {
    const value = row[column.key];
    entity[column.property] = column.timestamp && value !== null ? toDate(value) : value;
  }
  return entity;
}
function plainView(item) {
  const view = {};
  for (const field of fields) {
    const value = item[field.property];
    view[field.property] = field.timestamp && value instanceof Date ? value.toISOString() : value;
  }
  view._links = definition.links(item);
  return view;
}

const variants = {
  'rows → entities, generated': () => rows.map((row) => table.fromRow(row)).length,
  'rows → entities, plain loop': () => rows.map(plainFromRow).length,
  'entities → views, generated': () => items.map((item) => definition.view(item)).length,
  'entities → views, plain loop': () => items.map(plainView).length,
};
const time = (run, pages) => {
  const start = process.hrtime.bigint();
  for (let page = 0; page < pages; page++) run();
  return Number(process.hrtime.bigint() - start) / pages / 1000;
};
const results = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < 3; round++) for (const run of Object.values(variants)) time(run, 5000);
for (let round = 0; round < 21; round++) for (const [name, run] of Object.entries(variants)) results[name].push(time(run, 5000));
out('| page of 20 posts | best µs | median µs |\n|---|---:|---:|');
for (const [name, times] of Object.entries(results)) {
  const sorted = [...times].sort((a, b) => a - b);
  out(`| ${name} | ${sorted[0].toFixed(1)} | ${sorted[10].toFixed(1)} |`);
}
