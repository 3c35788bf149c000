import { Field, Int, ObjectType } from '@nestjs/graphql';

/** createToken's result: the same as POST /tokens answers. */
@ObjectType('Token')
export class Token {
  @Field(() => String)
  accessToken: string;

  @Field(() => String, { description: 'Always "Bearer"' })
  tokenType: string;

  @Field(() => Int, { description: 'Seconds until the token expires' })
  expiresIn: number;
}
