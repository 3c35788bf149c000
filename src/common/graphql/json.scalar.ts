import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** A literal as the plain value it writes (objects and lists through), variables aside. */
function literalValue(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literalValue(field.value)]));
    case Kind.LIST:
      return node.values.map(literalValue);
    case Kind.NULL:
      return null;
    default:
      return undefined;
  }
}

/**
 * `JSON`: any JSON value, as it is (an audit entry's `changes`, whose fields and values are the
 * changed resource's). Output in practice; an input literal is read as the value it writes.
 */
export const GraphQLJSON = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value: an object, a list, a text, a number, a boolean or null',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalValue,
});
