import { Field, Int, ObjectType } from '@nestjs/graphql';

/** createToken's result: the same as POST /tokens answers. */
@ObjectType('Token', { description: 'A bearer token, the answer to signing in' })
export class Token {
  @Field(() => String, { description: 'Send it as `Authorization: Bearer <accessToken>`' })
  accessToken: string;

  @Field(() => String, { description: 'Always "Bearer"' })
  tokenType: string;

  @Field(() => Int, { description: 'Seconds until the token expires' })
  expiresIn: number;
}
