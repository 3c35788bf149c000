import { type GraphQLSchema, printSchema } from 'graphql';

export const SCHEMA_FILE = 'schema.gql';

const HEADER =
  '# The GraphQL schema of the blog service, printed from the code-first definitions by\n' +
  '# `npm run schema:print`. Do not edit: a test fails when this file and the code disagree.\n\n';

/** schema.gql's content for a schema: a fixed header, then the SDL (types sorted by name). */
export function renderSchemaFile(schema: GraphQLSchema): string {
  return `${HEADER}${printSchema(schema)}\n`;
}
