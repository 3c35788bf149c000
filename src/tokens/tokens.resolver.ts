import { Args, Context, Mutation, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import type { IssuedToken } from '../auth/auth.service.js';
import { TokensService } from './tokens.service.js';
import { CreateTokenDto } from './dto/create-token.dto.js';
import { Token } from './models/token.model.js';

@Resolver()
export class TokensResolver {
  constructor(private readonly tokens: TokensService) {}

  /** Sign in, as POST /tokens: the same checks and the same sign-in rate limit per address and e-mail. */
  @Mutation(() => Token, { description: 'Sign in: an e-mail and password for a bearer token' })
  createToken(@Args('input', { description: 'Who signs in' }) input: CreateTokenDto, @Context() context: GraphQLContext): Promise<IssuedToken> {
    return this.tokens.issueToken(input.email, input.password, context.clientAddress);
  }
}
