import { Injectable } from '@nestjs/common';
import type DataLoader from 'dataloader';
import type { Comment } from '../comments/comment.entity.js';
import {
  createCommentByIdLoader,
  createCommentCountByPostLoader,
  createCommentsByPostLoader,
} from '../comments/comments.loader.js';
import { CommentsService } from '../comments/comments.service.js';
import type { PageRequest } from '../common/pagination/cursor.js';
import type { Post } from '../posts/post.entity.js';
import { createPostByIdLoader, createPostsByAuthorLoader } from '../posts/posts.loader.js';
import { PostsService } from '../posts/posts.service.js';
import type { User } from '../users/user.entity.js';
import { createUserByIdLoader } from '../users/users.loader.js';
import { UsersService } from '../users/users.service.js';

const pageKey = (page: PageRequest) => `${page.limit}:${page.after ?? ''}`;

/**
 * The DataLoaders of one GraphQL request (or of one subscription event): every read of a
 * related resource goes through them, so a page costs a constant number of SQL statements.
 * Loaders are created on first use; list loaders exist once per distinct page argument.
 */
export class Loaders {
  private users?: DataLoader<number, User | null>;
  private posts?: DataLoader<number, Post | null>;
  private comments?: DataLoader<number, Comment | null>;
  private commentCounts?: DataLoader<number, number>;
  private readonly commentPages = new Map<string, DataLoader<number, Comment[]>>();
  private readonly postPages = new Map<string, DataLoader<number, Post[]>>();

  constructor(
    private readonly usersService: UsersService,
    private readonly postsService: PostsService,
    private readonly commentsService: CommentsService,
  ) {}

  get userById(): DataLoader<number, User | null> {
    return (this.users ??= createUserByIdLoader(this.usersService));
  }

  get postById(): DataLoader<number, Post | null> {
    return (this.posts ??= createPostByIdLoader(this.postsService));
  }

  get commentById(): DataLoader<number, Comment | null> {
    return (this.comments ??= createCommentByIdLoader(this.commentsService));
  }

  get commentCountByPost(): DataLoader<number, number> {
    return (this.commentCounts ??= createCommentCountByPostLoader(this.commentsService));
  }

  /** Post.comments with these page arguments; `withAuthors` when the selection asks for `author`. */
  commentsByPost(page: PageRequest, withAuthors: boolean): DataLoader<number, Comment[]> {
    const key = `${pageKey(page)}:${withAuthors}`;
    let loader = this.commentPages.get(key);
    if (!loader) {
      loader = createCommentsByPostLoader(this.commentsService, page, withAuthors, (author) =>
        this.userById.prime(author.id, author),
      );
      this.commentPages.set(key, loader);
    }
    return loader;
  }

  /** User.posts with these page arguments. */
  postsByAuthor(page: PageRequest): DataLoader<number, Post[]> {
    const key = pageKey(page);
    let loader = this.postPages.get(key);
    if (!loader) {
      loader = createPostsByAuthorLoader(this.postsService, page, (post) => this.postById.prime(post.id, post));
      this.postPages.set(key, loader);
    }
    return loader;
  }
}

@Injectable()
export class LoadersFactory {
  constructor(
    private readonly users: UsersService,
    private readonly posts: PostsService,
    private readonly comments: CommentsService,
  ) {}

  create(): Loaders {
    return new Loaders(this.users, this.posts, this.comments);
  }
}
