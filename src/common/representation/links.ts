import type { Comment } from '../../comments/comment.entity.js';
import type { Post } from '../../posts/post.entity.js';
import type { User } from '../../users/user.entity.js';

export interface Link {
  href: string;
}
export type Links = Record<string, Link>;

export const userPath = (id: number) => `/users/${id}`;
export const postPath = (id: number) => `/posts/${id}`;
export const commentPath = (id: number) => `/comments/${id}`;

export function userLinks(user: Pick<User, 'id'>): Links {
  return { self: { href: userPath(user.id) }, posts: { href: `${userPath(user.id)}/posts` } };
}

export function postLinks(post: Pick<Post, 'id' | 'authorId'>): Links {
  return {
    self: { href: postPath(post.id) },
    author: { href: userPath(post.authorId) },
    comments: { href: `${postPath(post.id)}/comments` },
  };
}

export function commentLinks(comment: Pick<Comment, 'id' | 'postId' | 'authorId'>): Links {
  return {
    self: { href: commentPath(comment.id) },
    post: { href: postPath(comment.postId) },
    author: { href: userPath(comment.authorId) },
  };
}
