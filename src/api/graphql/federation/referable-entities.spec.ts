import { describe, expect, it } from 'vitest';
import { referableEntitiesSdl } from './referable-entities.js';

describe('referableEntitiesSdl', () => {
  it("cuts the `!` of an entity's fields other than its key, and nothing else", () => {
    const sdl = [
      'extend schema @link(url: "https://specs.apollo.dev/federation/v2.9", import: ["@key"])',
      '"""A post! Not a draft!"""',
      'type Post @key(fields: "id") {',
      '  id: Int!',
      '  """Never empty!"""',
      '  title: String!',
      '  tags(first: Int! = 5): [Tag!]! @listSize(assumedSize: 10)',
      '  publishedAt: String',
      '}',
      'type Tag @key(fields: "id") { id: Int! name: String! }',
      'type PageInfo { hasNextPage: Boolean! }',
    ].join('\n');
    expect(referableEntitiesSdl(sdl)).toBe(
      sdl.replace('title: String!', 'title: String').replace('[Tag!]! @listSize', '[Tag!] @listSize').replace('name: String!', 'name: String'),
    );
  });
});
