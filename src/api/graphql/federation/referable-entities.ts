import { type GraphQLFieldResolver, type GraphQLSchema, Kind, type ObjectTypeDefinitionNode, type ObjectTypeExtensionNode, parse } from 'graphql';

/** The fields named by an entity type's `@key(fields:)` directives (simple keys: `"id"`). */
function keyFields(type: ObjectTypeDefinitionNode | ObjectTypeExtensionNode): Set<string> {
  const names = new Set<string>();
  for (const directive of type.directives ?? []) {
    if (directive.name.value !== 'key') continue;
    const fields = directive.arguments?.find((argument) => argument.name.value === 'fields')?.value;
    if (fields?.kind === Kind.STRING) for (const name of fields.value.split(/[\s{}]+/)) if (name) names.add(name);
  }
  return names;
}

/**
 * The subgraph SDL with every field of an entity (a type with `@key`) other than its key
 * nullable. Another subgraph's reference asserts that the entity exists; when this subgraph
 * resolves it to null (the read policy hides it, or it is gone), a gateway nulls each field it
 * asked us for, and a non-null one turns that into a "Cannot return null for non-nullable field"
 * error (Hive Gateway, Apollo Router; Apollo Gateway an `extensions.valueCompletion` note) that
 * makes Apollo Client drop the whole result. The executable schema keeps its non-null types:
 * an entity we resolve has every field, and looser declared types are safe for a router.
 * Only the `!` characters are cut, so the rest of the SDL is printed as it was.
 */
export function referableEntitiesSdl(sdl: string): string {
  const cuts: number[] = [];
  for (const definition of parse(sdl).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION && definition.kind !== Kind.OBJECT_TYPE_EXTENSION) continue;
    const keys = keyFields(definition);
    if (keys.size === 0) continue;
    for (const field of definition.fields ?? []) {
      if (field.type.kind === Kind.NON_NULL_TYPE && !keys.has(field.name.value) && field.type.loc) cuts.push(field.type.loc.end - 1);
    }
  }
  let printed = sdl;
  for (const at of cuts.sort((a, b) => b - a)) {
    if (printed[at] !== '!') throw new Error(`referableEntitiesSdl: no "!" at offset ${at}`);
    printed = printed.slice(0, at) + printed.slice(at + 1);
  }
  return printed;
}

/** `Query._service { sdl }` answering {@link referableEntitiesSdl} of the SDL @apollo/subgraph prints (computed once). */
export function serveReferableEntitiesSdl(schema: GraphQLSchema): GraphQLSchema {
  const field = schema.getQueryType()?.getFields()._service;
  if (!field?.resolve) return schema;
  const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve;
  let printed: string | undefined;
  field.resolve = async (source, args, context, info) => {
    const service = (await resolve(source, args, context, info)) as { sdl?: string | null };
    printed ??= typeof service.sdl === 'string' ? referableEntitiesSdl(service.sdl) : undefined;
    return { ...service, sdl: printed ?? service.sdl };
  };
  return schema;
}
