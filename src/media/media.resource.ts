import { defineResource } from '../common/resource/resource-definition.js';
import { Media } from './media.entity.js';

/** Where a media item's bytes are served (the original, or `?variant=`). */
export const mediaFilePath = (id: number) => `/media/${id}/file`;

/** The address of one variant's bytes. */
export const variantHref = (id: number, name: string) => `${mediaFilePath(id)}?variant=${encodeURIComponent(name)}`;

export const MEDIA_RESOURCE = defineResource({
  kind: 'media',
  plural: 'media',
  entity: Media,
  links: (media: Media) => ({ file: { href: mediaFilePath(media.id) }, uploader: { href: `/users/${media.uploaderId}` } }),
  fieldSchemas: { mimeType: { type: 'string', enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'] } },
  computed: {
    focalPoint: {
      schema: {
        type: 'object',
        nullable: true,
        additionalProperties: false,
        required: ['x', 'y'],
        properties: { x: { type: 'number', minimum: 0, maximum: 1 }, y: { type: 'number', minimum: 0, maximum: 1 } },
        description: 'Where its subject is, x and y from 0 (left, top) to 1 (right, bottom); null: not said',
      },
    },
    variants: {
      schema: {
        type: 'array',
        description: 'The variants made so far (WebP, narrowest first); they appear in the background after the upload',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'width', 'height', 'mimeType', 'size', 'href'],
          properties: {
            name: { type: 'string', pattern: '^w[0-9]+$' },
            width: { type: 'integer', minimum: 1 },
            height: { type: 'integer', minimum: 1 },
            mimeType: { type: 'string', enum: ['image/webp'] },
            size: { type: 'integer', minimum: 0 },
            href: { type: 'string' },
          },
        },
      },
      xmlItem: 'variant',
    },
  },
  events: {
    mediaCreated: 'An image was uploaded',
    mediaUpdated: "A media item's alt, caption or focal point changed",
    mediaDeleted: 'A media item was deleted with its files: its ids only',
  },
  eventRefs: {
    mediaId: { field: 'id', description: 'The media item it is about; null for other events', filter: 'Only events about this media item' },
    authorId: 'uploaderId',
  },
});

declare module '../events/blog-events.js' {
  interface BlogEvents {
    mediaCreated: Media;
    mediaUpdated: Media;
    mediaDeleted: { id: number; uploaderId: number };
  }
}
