import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved selects `name` directly under it (through fragments and
 * inline fragments too). Lets a list resolver fetch related rows in the same statement when,
 * and only when, the client asks for them.
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const search = (selectionSet: SelectionSetNode | undefined): boolean => {
    if (!selectionSet) return false;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === name) return true;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (search(selection.selectionSet)) return true;
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        if (search(info.fragments[selection.name.value]?.selectionSet)) return true;
      }
    }
    return false;
  };
  return info.fieldNodes.some((node) => search(node.selectionSet));
}

/**
 * The fields selected directly under the given selection sets (by default the field being
 * resolved's), through fragments and inline fragments, by name (aliases merged), each with the
 * selection sets under it. A field under @skip/@include is counted as selected.
 */
export function selectedFields(
  info: GraphQLResolveInfo,
  selectionSets: readonly (SelectionSetNode | undefined)[] = info.fieldNodes.map((node) => node.selectionSet),
): Map<string, SelectionSetNode[]> {
  const fields = new Map<string, SelectionSetNode[]>();
  const seen = new Set<string>();
  const collect = (selectionSet: SelectionSetNode | undefined): void => {
    if (!selectionSet) return;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        let under = fields.get(selection.name.value);
        if (under === undefined) fields.set(selection.name.value, (under = []));
        if (selection.selectionSet) under.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        collect(selection.selectionSet);
      } else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        collect(info.fragments[selection.name.value]?.selectionSet);
      }
    }
  };
  for (const selectionSet of selectionSets) collect(selectionSet);
  return fields;
}
