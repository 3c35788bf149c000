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
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/**
 * A plan of `post(id:)` (issue 43): what one document reads of a post, its author, its comments
 * with their authors and its tags, found by one walk of its selection. The plan covers only
 * fields that today's resolvers read straight off a column (listed below), so that serving them
 * from one statement gives what the resolvers give; a document with anything else (another
 * field, a fragment, a directive, an argument not listed) has no plan and runs as before.
 */

/** A value of an argument: a literal, or a variable's name (read at each request). */
export type ArgumentValue = { literal: number } | { variable: string } | { absent: true };

/** A field of an object in the response, in selection order. */
export type PlannedField =
  | { key: string; kind: 'typename'; typename: string }
  | { key: string; kind: 'leaf'; property: string; type: GraphQLLeafType; nonNull: boolean }
  | { key: string; kind: 'object'; relation: 'author'; fields: PlannedField[] }
  | { key: string; kind: 'list'; relation: 'comments' | 'tags'; fields: PlannedField[] };

/** A related list's plan: its fields, and the columns of its rows and of their authors it reads. */
export interface PlannedList {
  fields: PlannedField[];
  columns: string[];
  /** The author's columns (comments only); undefined: the author is not selected. */
  authorColumns?: string[];
  /** `first` (comments only). */
  first?: ArgumentValue;
}

export interface PostPagePlan {
  /** The response key of the root field (its alias or `post`). */
  key: string;
  id: ArgumentValue;
  fields: PlannedField[];
  /** The post's columns the response shows. */
  columns: string[];
  /** The author's columns; undefined: not selected. */
  authorColumns?: string[];
  comments?: PlannedList;
  tags?: PlannedList;
}

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

class NoPlan extends Error {}

const decline = (): never => {
  throw new NoPlan();
};

/** The plan of an operation, or null when it is not (only) a `post(id:)` this planner covers. */
export function planPostPage(schema: GraphQLSchema, operation: OperationDefinitionNode): PostPagePlan | null {
  try {
    return plan(schema, operation);
  } catch (error) {
    if (error instanceof NoPlan) return null;
    throw error;
  }
}

function plan(schema: GraphQLSchema, operation: OperationDefinitionNode): PostPagePlan {
  if (operation.operation !== 'query' || operation.directives?.length) decline();
  for (const definition of operation.variableDefinitions ?? []) {
    // A variable's default would have to be read as graphql-js coerces it: left to it.
    if (definition.defaultValue !== undefined || definition.directives?.length) decline();
  }
  const query = schema.getQueryType();
  const [root, ...others] = plainFields(operation.selectionSet);
  if (!query || others.length > 0 || root.name.value !== 'post') decline();
  const args = argumentsOf(root, ['id']);
  if (args.id === undefined) decline();
  const post = objectType(schema, 'Post');
  const result: PostPagePlan = { key: keyOf(root), id: args.id!, fields: [], columns: ['id'] };
  for (const field of plainFields(selectionsOf(root))) {
    const key = keyOf(field);
    const name = field.name.value;
    if (name === '__typename') {
      noArguments(field);
      result.fields.push({ key, kind: 'typename', typename: 'Post' });
    } else if (COLUMN_FIELDS.Post.has(name)) {
      result.fields.push(leaf(post.getFields()[name], field, key));
      addColumn(result.columns, name);
    } else if (name === 'author' && result.authorColumns === undefined) {
      noArguments(field);
      const { fields, columns } = objectPlan(schema, 'User', field);
      result.authorColumns = columns;
      result.fields.push({ key, kind: 'object', relation: 'author', fields });
    } else if (name === 'comments' && result.comments === undefined) {
      const { first } = argumentsOf(field, ['first']);
      const comment = objectType(schema, 'Comment');
      const list: PlannedList = { fields: [], columns: ['id'], first: first ?? { absent: true } };
      for (const child of plainFields(selectionsOf(field))) {
        const childKey = keyOf(child);
        const childName = child.name.value;
        if (childName === '__typename') {
          noArguments(child);
          list.fields.push({ key: childKey, kind: 'typename', typename: 'Comment' });
        } else if (COLUMN_FIELDS.Comment.has(childName)) {
          list.fields.push(leaf(comment.getFields()[childName], child, childKey));
          addColumn(list.columns, childName);
        } else if (childName === 'author' && list.authorColumns === undefined) {
          noArguments(child);
          const author = objectPlan(schema, 'User', child);
          list.authorColumns = author.columns;
          list.fields.push({ key: childKey, kind: 'object', relation: 'author', fields: author.fields });
        } else {
          decline();
        }
      }
      result.comments = list;
      result.fields.push({ key, kind: 'list', relation: 'comments', fields: list.fields });
    } else if (name === 'tags' && result.tags === undefined) {
      noArguments(field);
      const { fields, columns } = objectPlan(schema, 'Tag', field);
      // Ordered by slug in code-point order, as the resolvers' tags are.
      addColumn(columns, 'slug');
      result.tags = { fields, columns };
      result.fields.push({ key, kind: 'list', relation: 'tags', fields });
    } else {
      decline();
    }
  }
  uniqueKeys(result.fields);
  return result;
}

/** An object whose every selected field is a column (User, Tag). */
function objectPlan(schema: GraphQLSchema, typeName: 'User' | 'Tag', node: FieldNode): { fields: PlannedField[]; columns: string[] } {
  const type = objectType(schema, typeName);
  const fields: PlannedField[] = [];
  const columns: string[] = ['id'];
  for (const field of plainFields(selectionsOf(node))) {
    const key = keyOf(field);
    const name = field.name.value;
    if (name === '__typename') {
      noArguments(field);
      fields.push({ key, kind: 'typename', typename: typeName });
    } else if (COLUMN_FIELDS[typeName].has(name)) {
      fields.push(leaf(type.getFields()[name], field, key));
      addColumn(columns, name);
    } else {
      decline();
    }
  }
  uniqueKeys(fields);
  return { fields, columns };
}

function leaf(definition: GraphQLField<unknown, unknown> | undefined, node: FieldNode, key: string): PlannedField {
  noArguments(node);
  if (!definition || node.selectionSet) decline();
  const type = getNamedType(definition!.type);
  if (!isLeafType(type)) decline();
  return { key, kind: 'leaf', property: node.name.value, type: type as GraphQLLeafType, nonNull: isNonNullType(definition!.type) };
}

function objectType(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) decline();
  return type as GraphQLObjectType;
}

/** The fields of a selection set, refusing fragments and directives (left to graphql-js). */
function plainFields(selectionSet: SelectionSetNode): FieldNode[] {
  return selectionSet.selections.map((selection) => {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) decline();
    return selection as FieldNode;
  });
}

function selectionsOf(field: FieldNode): SelectionSetNode {
  if (!field.selectionSet) decline();
  return field.selectionSet!;
}

const keyOf = (field: FieldNode) => field.alias?.value ?? field.name.value;

/** Two fields with one response key are merged by graphql-js: such documents are left to it. */
function uniqueKeys(fields: readonly PlannedField[]): void {
  if (new Set(fields.map((field) => field.key)).size !== fields.length) decline();
}

function noArguments(field: FieldNode): void {
  if (field.arguments?.length) decline();
}

function addColumn(columns: string[], property: string): void {
  if (!columns.includes(property)) columns.push(property);
}

/** The field's arguments, each an Int literal or a variable; any other argument or value: no plan. */
function argumentsOf(field: FieldNode, allowed: readonly string[]): Record<string, ArgumentValue | undefined> {
  const found: Record<string, ArgumentValue | undefined> = {};
  for (const argument of field.arguments ?? ([] as readonly ArgumentNode[])) {
    const name = argument.name.value;
    if (!allowed.includes(name) || found[name] !== undefined) decline();
    found[name] = valueOf(argument.value);
  }
  return found;
}

function valueOf(value: ValueNode): ArgumentValue {
  if (value.kind === Kind.VARIABLE) return { variable: value.name.value };
  if (value.kind === Kind.INT) return { literal: Number.parseInt(value.value, 10) };
  return decline();
}
