import { GraphQLError } from 'graphql';

/**
 * The code of the error that ends a subscription whose client reads slower than its events come
 * (its queue of unread live events is full, or its event stream has not taken what was written).
 * The client subscribes again; an `events` subscription resumes with `after` set to the
 * extension of the same name (the cursor of the last event it was sent), missing nothing.
 */
export const SUBSCRIBER_TOO_SLOW = 'SUBSCRIBER_TOO_SLOW';

export function subscriberTooSlow(message: string, after?: string): GraphQLError {
  return new GraphQLError(message, { extensions: after === undefined ? { code: SUBSCRIBER_TOO_SLOW } : { code: SUBSCRIBER_TOO_SLOW, after } });
}
