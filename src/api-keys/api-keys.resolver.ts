import { Args, Context, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { ApiKeysService } from './api-keys.service.js';
import { CreateApiKeyDto } from './dto/create-api-key.dto.js';
import { ApiKeyModel, CreatedApiKeyModel } from './models/api-key.model.js';

/** API keys over GraphQL: thin over ApiKeysService (the same rules as REST). */
@Resolver(() => ApiKeyModel)
export class ApiKeysResolver {
  constructor(private readonly keys: ApiKeysService) {}

  @Query(() => [ApiKeyModel], { description: "A user's API keys, without the keys (the user or an admin)" })
  apiKeys(@Args('userId', { type: () => Int, description: 'The id of the user whose keys to list' }) userId: number, @Context() context: GraphQLContext): Promise<ApiKeyModel[]> {
    return this.keys.list(userId, context.actor);
  }

  @Mutation(() => CreatedApiKeyModel, {
    description: 'The user or an admin, never with an API key: a new key, shown only in this answer. Needs a token less than 5 minutes old, or input.currentPassword',
  })
  createApiKey(
    @Args('userId', { type: () => Int, description: 'The id of the user the key acts for' }) userId: number,
    @Args('input', { description: 'The new key' }) input: CreateApiKeyDto,
    @Context() context: GraphQLContext,
  ): Promise<CreatedApiKeyModel> {
    return this.keys.create(userId, input, context.actor, context.clientAddress);
  }

  @Mutation(() => Boolean, { description: 'The user or an admin: the key is refused from now on' })
  async revokeApiKey(
    @Args('userId', { type: () => Int, description: 'The id of the user the key belongs to' }) userId: number,
    @Args('id', { type: () => Int, description: "The key's id" }) id: number,
    @Context() context: GraphQLContext,
  ): Promise<boolean> {
    await this.keys.revoke(userId, id, context.actor);
    return true;
  }
}
