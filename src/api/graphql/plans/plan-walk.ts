import {
  type ArgumentNode,
  type FieldNode,
  getNamedType,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isLeafType,
  isNonNullType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';

/**
 * The walk of a document's selection that the plans share (issue 43): what one document reads,
 * found once per document. A plan covers only fields that today's resolvers read straight off a
 * column (COLUMN_FIELDS) or that a plan computes as the resolvers do (a connection's cursors and
 * pageInfo); a selection with anything else (another field, a fragment, a directive, an argument
 * not listed) declines, and the document runs as before.
 */

/** A value of an argument: a literal, or a variable's name (read at each request). */
export type ArgumentValue = { literal: number | string } | { variable: string } | { absent: true };

/**
 * A field of an object in the response, in selection order. A leaf reads `property` of its
 * source; an object or a list reads the source's `relation` (set by the plan's hydration).
 */
export type PlannedField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'leaf'; property: string; type: GraphQLLeafType; nonNull: boolean }
  | { key: string; kind: 'object'; relation: string; fields: PlannedField[] }
  | { key: string; kind: 'list'; relation: string; fields: PlannedField[] };

/** The fields of each type served from a column (property = field name), with no resolver of their own. */
export const COLUMN_FIELDS: Record<'Post' | 'User' | 'Comment' | 'Tag', ReadonlySet<string>> = {
  Post: new Set([
    'id',
    'title',
    'slug',
    'body',
    'bodyFormat',
    'bodyHtml',
    'excerpt',
    'readingTimeMinutes',
    'metaTitle',
    'metaDescription',
    'canonicalUrl',
    'coverImageId',
    'locale',
    'authorId',
    'status',
    'publishAt',
    'publishedAt',
    'trashedAt',
    'createdAt',
    'updatedAt',
  ]),
  // Not email nor commentsBlocked: who may read those is the users' resolvers' business.
  User: new Set(['id', 'name', 'avatarUrl']),
  Comment: new Set(['id', 'postId', 'parentId', 'status', 'body', 'bodyHtml', 'authorId', 'createdAt', 'updatedAt']),
  Tag: new Set(['id', 'name', 'slug', 'createdAt', 'updatedAt']),
};

/** The scalar type a variable read by a plan must be declared with (nullable or not). */
export type VariableType = 'Int' | 'String';

/** The operation's variable definitions by name. */
export type Variables = ReadonlyMap<string, VariableDefinitionNode>;

export class NoPlan extends Error {}

export const decline = (): never => {
  throw new NoPlan();
};

/** The fields of a selection set, refusing fragments and directives (left to graphql-js). */
export function plainFields(selectionSet: SelectionSetNode): FieldNode[] {
  return selectionSet.selections.map((selection) => {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) decline();
    return selection as FieldNode;
  });
}

export function selectionsOf(field: FieldNode): SelectionSetNode {
  if (!field.selectionSet) decline();
  return field.selectionSet!;
}

export const keyOf = (field: FieldNode) => field.alias?.value ?? field.name.value;

/** Two fields with one response key are merged by graphql-js: such documents are left to it. */
export function uniqueKeys(fields: readonly PlannedField[]): void {
  if (new Set(fields.map((field) => field.key)).size !== fields.length) decline();
}

export function noArguments(field: FieldNode): void {
  if (field.arguments?.length) decline();
}

export function addColumn(columns: string[], property: string): void {
  if (!columns.includes(property)) columns.push(property);
}

export function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) decline();
  return type as GraphQLObjectType;
}

/** `__typename`, planned as the type's name. */
export function typename(field: FieldNode, typeName: string): PlannedField {
  noArguments(field);
  return { key: keyOf(field), kind: 'typename', typename: typeName };
}

/** A leaf field of `type`, serialized by its schema type from its source's property of the same name. */
export function leaf(type: GraphQLObjectType, node: FieldNode): PlannedField {
  const definition: GraphQLField<unknown, unknown> | undefined = type.getFields()[node.name.value];
  noArguments(node);
  if (!definition || node.selectionSet) decline();
  const named = getNamedType(definition!.type);
  if (!isLeafType(named)) decline();
  return { key: keyOf(node), kind: 'leaf', property: node.name.value, type: named as GraphQLLeafType, nonNull: isNonNullType(definition!.type) };
}

/**
 * An object whose every selected field is a column (User, Tag): its fields, and its columns added
 * to `columns` (shared by every selection of the same relation, so one statement reads them all).
 */
export function columnObject(schema: GraphQLSchema, typeName: 'User' | 'Tag', node: FieldNode, columns: string[]): PlannedField[] {
  const type = objectType(schema, typeName);
  const fields: PlannedField[] = [];
  addColumn(columns, 'id');
  for (const field of plainFields(selectionsOf(node))) {
    const name = field.name.value;
    if (name === '__typename') {
      fields.push(typename(field, typeName));
    } else if (COLUMN_FIELDS[typeName].has(name)) {
      fields.push(leaf(type, field));
      addColumn(columns, name);
    } else {
      decline();
    }
  }
  uniqueKeys(fields);
  return fields;
}

/**
 * The field's arguments, each a literal or a variable declared with the type given for it; any
 * other argument, a variable of another type or a literal of another kind: no plan.
 */
export function argumentsOf(field: FieldNode, allowed: Readonly<Record<string, VariableType>>, variables: Variables): Record<string, ArgumentValue | undefined> {
  const found: Record<string, ArgumentValue | undefined> = {};
  for (const argument of field.arguments ?? ([] as readonly ArgumentNode[])) {
    const name = argument.name.value;
    const type = Object.hasOwn(allowed, name) ? allowed[name] : undefined;
    if (type === undefined || found[name] !== undefined) decline();
    found[name] = valueOf(argument.value, type!, variables);
  }
  return found;
}

function valueOf(value: ValueNode, type: VariableType, variables: Variables): ArgumentValue {
  if (value.kind === Kind.VARIABLE) {
    const declared = variables.get(value.name.value)?.type;
    const named = declared?.kind === Kind.NON_NULL_TYPE ? declared.type : declared;
    if (named?.kind !== Kind.NAMED_TYPE || named.name.value !== type) decline();
    return { variable: value.name.value };
  }
  if (type === 'Int' && value.kind === Kind.INT) return { literal: Number.parseInt(value.value, 10) };
  if (type === 'String' && value.kind === Kind.STRING) return { literal: value.value };
  return decline();
}
