import { DomainError } from '../errors/domain-error.js';

/** A related resource that must exist (Post.author, Comment.post): NOT_FOUND rather than a null in a non-null field. */
export async function required<T>(loading: Promise<T | null>, resource: string, id: number): Promise<T> {
  const value = await loading;
  if (value === null) throw DomainError.notFound(resource, id);
  return value;
}
