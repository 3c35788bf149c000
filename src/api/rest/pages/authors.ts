import type { ListItem } from '../../../common/resource/resource.js';
import type { UsersService } from '../../../users/users.service.js';

/** Each view with `authorName`, in one statement for the whole list. */
export async function withAuthorNames<T extends ListItem>(users: UsersService, views: readonly T[]): Promise<(T & { authorName: string })[]> {
  const names = await users.namesOf(views.map((view) => view.authorId as number));
  return views.map((view) => ({ ...view, authorName: names.get(view.authorId as number)?.name ?? 'unknown' }));
}

/** The author of one resource (its name and avatar), undefined when there is none. */
export async function authorOf(users: UsersService, view: ListItem): Promise<{ name: string; avatarUrl: string | null } | undefined> {
  return (await users.namesOf([view.authorId as number])).get(view.authorId as number);
}
