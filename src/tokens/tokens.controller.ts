import { Body, Controller, Ip, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiJson } from '../common/openapi/api-docs.decorators.js';
import { schemaRef, TOKEN_SCHEMA } from '../common/openapi/schemas.js';
import type { IssuedToken } from '../auth/auth.service.js';
import { TokensService } from './tokens.service.js';
import { CreateTokenDto } from './dto/create-token.dto.js';

@ApiTags('auth')
@Controller('tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @ApiOperation({ summary: 'Sign in: trade an e-mail and password for a bearer token' })
  @ApiJson(201, 'A JWT bearer token', schemaRef('Token', TOKEN_SCHEMA))
  create(@Body() input: CreateTokenDto, @Ip() clientAddress: string): Promise<IssuedToken> {
    return this.tokens.issueToken(input.email, input.password, clientAddress);
  }
}
