import { readFileSync } from 'node:fs';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import {
  buildSchema,
  type GraphQLField,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedDirective,
  isSpecifiedScalarType,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderSchemaFile, SCHEMA_FILE } from '../src/api/graphql/schema-file.js';
import { useApp } from './support/fixture.js';

/**
 * The names and signatures CONTRACT.md §4 fixes (the Subscription type comes with subscriptions).
 * The nested lists User.posts and Post.comments take no `after`: they hand out no cursors.
 * §7 adds the editorial life of a post (PostStatus, its times, revisions); §9 the four roles, blocked commenters and threads
 * (Comment.parentId, parent, replies); §16 review before publishing (IN_REVIEW, reviewPost).
 */
const CONTRACT = `
scalar DateTime
enum Role { ADMIN AUTHOR EDITOR MODERATOR }
enum PostStatus { DRAFT IN_REVIEW PUBLISHED SCHEDULED TRASHED }
enum ReviewDecision { APPROVE REQUEST_CHANGES }
type PostReview { id: Int!  postId: Int!  reviewerId: Int  decision: ReviewDecision!  note: String  createdAt: DateTime! }
enum PostOrder { PUBLISHED_AT_ASC PUBLISHED_AT_DESC RELEVANCE TITLE_ASC UPDATED_AT_DESC }
enum CommentStatus { APPROVED HIDDEN PENDING SPAM }
type PostRevision { number: Int!  title: String!  body: String!  status: PostStatus!  editorId: Int  createdAt: DateTime! }
type User    { id: Int!  name: String!  email: String!  avatarUrl: String  role: Role!  commentsBlocked: Boolean
               createdAt: DateTime!  updatedAt: DateTime!  posts(first: Int = 20): [Post!]! }
type Post    { id: Int!  title: String!  body: String!  authorId: Int!  author: User!
               comments(first: Int = 50): [Comment!]!  commentCount: Int!
               status: PostStatus!  publishAt: DateTime  publishedAt: DateTime  trashedAt: DateTime
               revisions(first: Int = 20): [PostRevision!]!
               createdAt: DateTime!  updatedAt: DateTime! }
type Comment { id: Int!  body: String!  postId: Int!  post: Post!  authorId: Int!  author: User!
               parentId: Int  parent: Comment  replies(first: Int = 50): [Comment!]!
               status: CommentStatus!  createdAt: DateTime!  updatedAt: DateTime! }
type PageInfo { hasNextPage: Boolean!  hasPreviousPage: Boolean!  startCursor: String  endCursor: String }
type PostEdge { cursor: String!  node: Post!  rank: Float  snippet: String }
type PostConnection { edges: [PostEdge!]!  nodes: [Post!]!  pageInfo: PageInfo!  totalCount: Int! }
type CommentEdge { cursor: String!  node: Comment! }
type CommentConnection { edges: [CommentEdge!]!  nodes: [Comment!]!  pageInfo: PageInfo!  totalCount: Int! }
type UserEdge { cursor: String!  node: User! }
type UserConnection { edges: [UserEdge!]!  nodes: [User!]!  pageInfo: PageInfo!  totalCount: Int! }
type Token { accessToken: String!  tokenType: String!  expiresIn: Int! }
input CreateUserInput { name: String! email: String! password: String! avatarUrl: String }
input CreateTokenInput { email: String! password: String! }
input UpdateUserInput { name: String avatarUrl: String password: String role: Role commentsBlocked: Boolean }
input CreatePostInput { title: String! body: String! status: PostStatus publishAt: DateTime }
input UpdatePostInput { title: String body: String status: PostStatus publishAt: DateTime revision: Int }
input CreateCommentInput { postId: Int! body: String! parentId: Int }
input UpdateCommentInput { body: String status: CommentStatus }
type Query {
  post(id: Int, slug: String, preview: String): Post
  posts(first: Int = 20, after: String, authorId: Int, tag: [String!], search: String, status: PostStatus, publishedAfter: DateTime, publishedBefore: DateTime, orderBy: PostOrder, locale: String): PostConnection!
  user(id: Int!): User
  users(first: Int = 20, after: String): UserConnection!
  comment(id: Int!): Comment
  comments(status: CommentStatus, first: Int = 20, after: String): CommentConnection!
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
  moderateComments(ids: [Int!]!, status: CommentStatus!): [Comment!]!
  reviewPost(id: Int!, decision: ReviewDecision!, note: String): PostReview!
}`;

/** Every type, field, argument, input field, enum value and directive of ours that has no description. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const check = (what: string, description: string | null | undefined) => {
    if (!description?.trim()) missing.push(what);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    check(type.name, type.description);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(`${type.name}.${field.name}`, field.description);
        for (const arg of field.args) check(`${type.name}.${field.name}(${arg.name})`, arg.description);
      }
    }
    if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) check(`${type.name}.${field.name}`, field.description);
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) check(`${type.name}.${value.name}`, value.description);
    }
  }
  for (const directive of schema.getDirectives()) {
    if (isSpecifiedDirective(directive)) continue;
    check(`@${directive.name}`, directive.description);
    for (const arg of directive.args) check(`@${directive.name}(${arg.name})`, arg.description);
  }
  return missing;
}

function signature(field: GraphQLField<unknown, unknown>): string {
  const args = field.args.map((arg) => `${arg.name}: ${String(arg.type)}${arg.defaultValue === undefined ? '' : ` = ${JSON.stringify(arg.defaultValue)}`}`);
  return `${field.name}(${args.sort().join(', ')}): ${String(field.type)}`;
}

describe('the GraphQL schema', () => {
  const app = useApp('sqlite', { signIn: [] });
  let served: GraphQLSchema;

  beforeAll(async () => {
    served = app.app.get(GraphQLSchemaHost).schema;
  });

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
      if (isEnumType(type)) {
        expect(isEnumType(actual)).toBe(true);
        expect((actual as typeof type).getValues().map((value) => value.name), type.name).toEqual(type.getValues().map((value) => value.name));
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

  it('describes every type, field, argument, input field and enum value of ours', () => {
    const missing = undescribed(served);
    expect(missing, `${missing.length} without a description:\n${missing.join('\n')}`).toEqual([]);
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
