import { readFileSync } from 'node:fs';
import { type DocumentNode, type FieldNode, Kind, type OperationDefinitionNode, parse, print, type SelectionSetNode, visit } from 'graphql';
import { USER_DOCS } from './user-docs.js';

/**
 * The GraphQL operations the user docs show (the README and docs/, in USER_DOCS order), read from
 * the pages themselves (issue 37 item 1: the cost of each).
 */

const ROOT = new URL('../../', import.meta.url);
const PAGES = USER_DOCS.map((page) => readFileSync(new URL(page, ROOT), 'utf8'));

/** Every operation of the user docs: their ```graphql blocks and the `"query"` strings of their examples. */
export function readmeOperations(): string[] {
  const sources: string[] = [];
  for (const page of PAGES) {
    for (const [, block] of page.matchAll(/```graphql\n([\s\S]*?)```/g)) sources.push(block);
    for (const [, literal] of page.matchAll(/"query":\s*"((?:[^"\\]|\\.)*)"/g)) sources.push(JSON.parse(`"${literal}"`) as string);
  }
  const operations: string[] = [];
  for (const source of sources) {
    const document = parse(source);
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) operations.push(print(definition));
    }
  }
  return operations;
}

/** What Apollo Client sends: `__typename` added to every selection set but the operation's own. */
export function withTypename(query: string): string {
  const document = visit(parse(query), {
    SelectionSet: {
      leave(set: SelectionSetNode, _key, parent) {
        if ((parent as OperationDefinitionNode | undefined)?.kind === Kind.OPERATION_DEFINITION) return undefined;
        if (set.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === '__typename')) return undefined;
        const typename: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };
        return { ...set, selections: [...set.selections, typename] };
      },
    },
  }) as DocumentNode;
  return print(document);
}

/** A thread page of 50 comments with two levels of 5 replies, each with its author (CONTRACT §18). */
export const THREAD_PAGE = `query ThreadPage($id: Int!) {
  post(id: $id) {
    id title commentCount
    comments(first: 50) {
      id body author { name }
      replies(first: 5) {
        id body author { name }
        replies(first: 5) { id body author { name } }
      }
    }
  }
}`;

export const operationOf = (query: string): OperationDefinitionNode =>
  parse(query).definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;

export const isSubscription = (query: string) => operationOf(query).operation === 'subscription';

/** The name a table shows for an operation: its own, else its first root field. */
export function operationLabel(query: string): string {
  const operation = operationOf(query);
  const first = operation.selectionSet.selections[0];
  return `${operation.operation} ${operation.name?.value ?? (first.kind === Kind.FIELD ? first.name.value : '?')}`;
}
