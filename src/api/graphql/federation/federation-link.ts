import type { Federation2Config } from '@nestjs/graphql';

/**
 * The federation spec the subgraph links: the lowest whose directives the schema uses (v2.9
 * brought `@cost`/`@listSize`). Nest would link the newest @apollo/subgraph knows (v2.14), which
 * Apollo's composition takes but the Guild's composition and Hive Gateway refuse
 * (`Invalid version`). Raise it only with a directive that needs it.
 */
export const FEDERATION_SPEC_URL = 'https://specs.apollo.dev/federation/v2.9';

/** `autoSchemaFile.federation`: the link above, importing the directives the schema applies (and `@shareable`, for types other subgraphs share). */
export const FEDERATION_LINK: Federation2Config = {
  version: 2,
  importUrl: FEDERATION_SPEC_URL,
  directives: ['@key', '@shareable', '@cost', '@listSize'],
};
