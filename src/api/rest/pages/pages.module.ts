import { Module } from '@nestjs/common';
import { CommentsModule } from '../../../comments/comments.module.js';
import { MediaModule } from '../../../media/media.module.js';
import { PublicationModule } from '../../../publication/publication.module.js';
import { UsersModule } from '../../../users/users.module.js';
import { CommentListPage } from './comment-list-page.js';
import { CommentPage } from './comment-page.js';
import { EventListPage } from './event-list-page.js';
import { EventPage } from './event-page.js';
import type { ItemPage, ListPage } from './page.js';
import { PageRegistry } from './page-registry.js';
import { PostListPage } from './post-list-page.js';
import { PostPage } from './post-page.js';
import { RevisionListPage } from './revision-list-page.js';
import { RevisionPage } from './revision-page.js';
import { TagListPage } from './tag-list-page.js';
import { TagPage } from './tag-page.js';
import { UserListPage } from './user-list-page.js';
import { UserPage } from './user-page.js';

/** The page of one resource, by kind: a new resource with an HTML page adds its class here. */
const ITEM_PAGES = [PostPage, CommentPage, UserPage, TagPage, RevisionPage, EventPage];
/** The page of a list, by kind. */
const LIST_PAGES = [PostListPage, CommentListPage, UserListPage, TagListPage, RevisionListPage, EventListPage];

/** The HTML pages: each injects the services whose data it shows; the registry hands them to the HTML renderer. */
@Module({
  imports: [UsersModule, CommentsModule, PublicationModule, MediaModule],
  providers: [
    ...ITEM_PAGES,
    ...LIST_PAGES,
    {
      provide: PageRegistry,
      inject: [...ITEM_PAGES, ...LIST_PAGES],
      useFactory: (...pages: (ItemPage | ListPage)[]) => new PageRegistry(pages.slice(0, ITEM_PAGES.length) as ItemPage[], pages.slice(ITEM_PAGES.length) as ListPage[]),
    },
  ],
  exports: [PageRegistry],
})
export class PagesModule {}
