import { readFileSync } from 'node:fs';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import { buildSchema, type GraphQLField, type GraphQLSchema, isInputObjectType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSchemaFile, SCHEMA_FILE } from '../src/api/graphql/schema-file.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The names and signatures CONTRACT.md §4 fixes (the Subscription type comes with subscriptions). */
const CONTRACT = `
scalar DateTime
type User    { id: Int!  name: String!  email: String!  avatarUrl: String  role: String!
               createdAt: DateTime!  updatedAt: DateTime!  posts(first: Int = 20, after: String): [Post!]! }
type Post    { id: Int!  title: String!  body: String!  authorId: Int!  author: User!
               comments(first: Int = 50, after: String): [Comment!]!  commentCount: Int!
               createdAt: DateTime!  updatedAt: DateTime! }
type Comment { id: Int!  body: String!  postId: Int!  post: Post!  authorId: Int!  author: User!
               createdAt: DateTime!  updatedAt: DateTime! }
type PageInfo { hasNextPage: Boolean!  endCursor: String }
type PostEdge { cursor: String!  node: Post! }
type PostConnection { edges: [PostEdge!]!  nodes: [Post!]!  pageInfo: PageInfo!  totalCount: Int! }
type UserEdge { cursor: String!  node: User! }
type UserConnection { edges: [UserEdge!]!  nodes: [User!]!  pageInfo: PageInfo!  totalCount: Int! }
type Token { accessToken: String!  tokenType: String!  expiresIn: Int! }
input CreateUserInput { name: String! email: String! password: String! avatarUrl: String }
input CreateTokenInput { email: String! password: String! }
input UpdateUserInput { name: String avatarUrl: String password: String }
input CreatePostInput { title: String! body: String! }
input UpdatePostInput { title: String body: String }
input CreateCommentInput { postId: Int! body: String! }
input UpdateCommentInput { body: String! }
type Query {
  post(id: Int!): Post
  posts(first: Int = 20, after: String, authorId: Int): PostConnection!
  user(id: Int!): User
  users(first: Int = 20, after: String): UserConnection!
  comment(id: Int!): Comment
  me: User
}
type Mutation {
  createUser(input: CreateUserInput!): User!
  createToken(input: CreateTokenInput!): Token!
  updateUser(id: Int!, input: UpdateUserInput!): User!
  deleteUser(id: Int!): Int!
  createPost(input: CreatePostInput!): Post!
  updatePost(id: Int!, input: UpdatePostInput!): Post!
  deletePost(id: Int!): Int!
  createComment(input: CreateCommentInput!): Comment!
  updateComment(id: Int!, input: UpdateCommentInput!): Comment!
  deleteComment(id: Int!): Int!
}`;

function signature(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map((arg) => `${arg.name}: ${String(arg.type)}${arg.defaultValue === undefined ? '' : ` = ${JSON.stringify(arg.defaultValue)}`}`);
  return `${field.name}(${args.sort().join(', ')}): ${String(field.type)}`;
}

describe('the GraphQL schema', () => {
  let app: TestApp;
  let served: GraphQLSchema;

  beforeAll(async () => {
    app = await startTestApp('sqlite');
    served = app.app.get(GraphQLSchemaHost).schema;
  });
  afterAll(() => app?.close());

  it(`${SCHEMA_FILE} at the repository root is the schema the app serves (else run: npm run schema:print)`, () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8'), `${SCHEMA_FILE} is stale: run npm run schema:print`).toBe(renderSchemaFile(served));
  });

  it('has every type, field, argument and default of the contract', () => {
    const contract = buildSchema(CONTRACT);
    for (const type of Object.values(contract.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Boolean', 'Float', 'ID'].includes(type.name)) continue;
      const actual = served.getType(type.name);
      expect(actual, `type ${type.name}`).toBeDefined();
      if (isObjectType(type)) {
        expect(isObjectType(actual)).toBe(true);
        const fields = (actual as typeof type).getFields();
        for (const field of Object.values(type.getFields())) {
          expect(fields[field.name] && signature(fields[field.name]), `${type.name}.${field.name}`).toBe(signature(field));
        }
      }
      if (isInputObjectType(type)) {
        expect(isInputObjectType(actual)).toBe(true);
        const fields = (actual as typeof type).getFields();
        for (const field of Object.values(type.getFields())) {
          expect(String(fields[field.name]?.type), `${type.name}.${field.name}`).toBe(String(field.type));
        }
      }
    }
  });

  it('exposes no password hash and no version', () => {
    const sdl = readFileSync(SCHEMA_FILE, 'utf8');
    expect(sdl).not.toMatch(/password_?hash|passwordHash|\bversion\b/i);
    expect(Object.keys((served.getType('User') as never as { getFields(): object }).getFields())).not.toContain('password');
  });

  it('is served with a Query and a Mutation type (Subscription arrives with subscriptions)', () => {
    expect(served.getQueryType()?.name).toBe('Query');
    expect(served.getMutationType()?.name).toBe('Mutation');
  });
});
