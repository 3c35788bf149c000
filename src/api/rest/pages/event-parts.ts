/** The fields of an event beside its refs. */
const OWN_FIELDS = JSON.stringify(['cursor', 'type', 'occurredAt', 'resource', '_links']);

/** An event's refs (`postId 3 · authorId 2`), whatever resources declare them (`event` the template's expression of the event). */
export const REFS_TEMPLATE = (event: string) =>
  `<% Object.keys(${event}).filter(function (key) { return ${OWN_FIELDS}.indexOf(key) < 0; }).forEach(function (key) { %> <span class="ref"><%= key %> <%= ${event}[key] %></span><% }) %>`;
