import { describe, expect, it } from 'vitest';
import { Renderer, sql, type Fragment } from './sql-template.js';

const postgres = () => new Renderer((index) => `$${index}`);
const sqlite = () => new Renderer(() => '?');

describe('the sql tag', () => {
  it('makes each value a parameter, in order, in the dialect’s placeholders', () => {
    const statement = (id: number, name: string) => sql`SELECT id FROM t WHERE id = ${id} AND name = ${name}`;
    expect(postgres().render(statement(7, 'a'))).toEqual({ text: 'SELECT id FROM t WHERE id = $1 AND name = $2', params: [7, 'a'] });
    expect(sqlite().render(statement(7, 'a'))).toEqual({ text: 'SELECT id FROM t WHERE id = ? AND name = ?', params: [7, 'a'] });
  });

  it('writes fragments as SQL, numbering their values with the others: raw, join, in, where, empty', () => {
    const table = sql.raw('posts t');
    const where = sql.where([sql`t.author_id = ${3}`, sql`t.id IN (${sql.in([4, 5, 6])})`]);
    const rows = sql.join([sql`(${1}, ${2})`, sql`(${1}, ${3})`]);
    const renderer = postgres();
    expect(renderer.render(sql`SELECT * FROM ${table}${where} LIMIT ${10}`)).toEqual({
      text: 'SELECT * FROM posts t WHERE t.author_id = $1 AND t.id IN ($2, $3, $4) LIMIT $5',
      params: [3, 4, 5, 6, 10],
    });
    expect(renderer.render(sql`INSERT INTO p (a, b) VALUES ${rows}`)).toEqual({ text: 'INSERT INTO p (a, b) VALUES ($1, $2), ($3, $4)', params: [1, 2, 1, 3] });
    expect(renderer.render(sql`SELECT 1${sql.where([])}${sql.empty}`)).toEqual({ text: 'SELECT 1', params: [] });
  });

  it('renders a call site of values and fixed fragments once: the same text (its prepared-statement key) on every call', () => {
    const renderer = sqlite();
    const columns = sql.raw('t.id, t.title');
    const other = sql.raw('t.id');
    const byId = (select: Fragment, id: number) => renderer.render(sql`SELECT ${select} FROM posts t WHERE t.id = ${id}`);
    const first = byId(columns, 1);
    const second = byId(columns, 2);
    expect(second).toEqual({ text: 'SELECT t.id, t.title FROM posts t WHERE t.id = ?', params: [2] });
    expect(second.text).toBe(first.text);
    // Another fixed fragment at the same place is a variant of its own.
    expect(byId(other, 3)).toEqual({ text: 'SELECT t.id FROM posts t WHERE t.id = ?', params: [3] });
    expect(byId(columns, 4).params).toEqual([4]);
    // A value where a fragment was (or the other way round) is never taken for it.
    const either = (value: unknown) => renderer.render(sql`SELECT ${value}`);
    expect(either(sql.raw('1'))).toEqual({ text: 'SELECT 1', params: [] });
    expect(either(1)).toEqual({ text: 'SELECT ?', params: [1] });
    expect(either(sql`${2} + ${3}`)).toEqual({ text: 'SELECT ? + ?', params: [2, 3] });
  });

  it('maps the SQL of a fragment and of the fragments in it, never its values', () => {
    const condition = sql`(${sql.raw('RANK')}, t.id) < (${'RANK'}, ${1})`;
    expect(postgres().render(condition.mapText((text) => text.replace(/\bRANK\b/g, 's.rank')))).toEqual({ text: '(s.rank, t.id) < ($1, $2)', params: ['RANK', 1] });
  });
});
