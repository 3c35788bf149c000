import { Field, GraphQLISODateTime, Int, ObjectType } from '@nestjs/graphql';
import type { Scope } from '../../common/actor.js';

/** An API key as its owner sees it (never the key itself, but at its creation). */
@ObjectType('ApiKey', { description: "A user's key for integrations" })
export class ApiKeyModel {
  @Field(() => Int, { description: "The key's id (for revokeApiKey)" })
  id: number;

  @Field(() => String, { description: 'What the key is for' })
  name: string;

  @Field(() => [String], { description: '"read" and/or "write"' })
  scopes: Scope[];

  @Field(() => GraphQLISODateTime, { description: 'When it was created' })
  createdAt: Date;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When it stops working; null: never' })
  expiresAt: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'When it was last used (to the minute); null: never' })
  lastUsedAt: Date | null;
}

/** The answer to createApiKey: the key, shown only this once. */
@ObjectType('CreatedApiKey', { description: 'A new API key, with the key shown only this once' })
export class CreatedApiKeyModel extends ApiKeyModel {
  @Field(() => String, { description: 'blog_…: send it as `Authorization: Bearer <key>`; it is not shown again' })
  key: string;
}
