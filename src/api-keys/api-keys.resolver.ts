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
  apiKeys(@Args('userId', { type: () => Int }) userId: number, @Context() context: GraphQLContext): Promise<ApiKeyModel[]> {
    return this.keys.list(userId, context.actor);
  }

  @Mutation(() => CreatedApiKeyModel, { description: 'The user or an admin, never with an API key: a new key, shown only in this answer' })
  createApiKey(
    @Args('userId', { type: () => Int }) userId: number,
    @Args('input') input: CreateApiKeyDto,
    @Context() context: GraphQLContext,
  ): Promise<CreatedApiKeyModel> {
    return this.keys.create(userId, input, context.actor);
  }

  @Mutation(() => Boolean, { description: 'The user or an admin: the key is refused from now on' })
  async revokeApiKey(
    @Args('userId', { type: () => Int }) userId: number,
    @Args('id', { type: () => Int }) id: number,
    @Context() context: GraphQLContext,
  ): Promise<boolean> {
    await this.keys.revoke(userId, id, context.actor);
    return true;
  }
}
