import { Body, Controller, Ip, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi/api-docs.decorators.js';
import { TOKEN_SCHEMA } from '../common/openapi/schemas.js';
import type { IssuedToken } from '../auth/auth.service.js';
import { TokensService } from './tokens.service.js';
import { CreateTokenDto } from './dto/create-token.dto.js';

@ApiTags('auth')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @ApiOperation({ summary: 'Sign in: trade an e-mail and password for a bearer token' })
  @ApiResponse({ status: 201, description: 'A JWT bearer token', content: { 'application/json': { schema: TOKEN_SCHEMA } } })
  @ApiProblems(400, 401, 413, 415, 429)
  create(@Body() input: CreateTokenDto, @Ip() clientAddress: string): Promise<IssuedToken> {
    return this.tokens.issueToken(input.email, input.password, clientAddress);
  }
}
