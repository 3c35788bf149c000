import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  type CompletedPart,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Readable } from 'node:stream';
import { type ByteRange, MediaStorage, type StoredObject } from './media-storage.js';

/** The size of every multipart part but the last (S3 wants at least 5 MiB; at most 10,000 parts). */
export const S3_PART_SIZE = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;

/** Where an S3MediaStorage keeps its objects (S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_FORCE_PATH_STYLE). */
export interface S3MediaStorageOptions {
  /** The store's URL (MinIO, s3rver, …); none for AWS S3 itself. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (MinIO and most other stores). */
  forcePathStyle: boolean;
  /** Keys to sign with; none to let the SDK find them (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, a role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Keys per ListObjectsV2 page (the store's own maximum, 1000 on AWS, when unset). */
  listPageSize?: number;
}

/**
 * MEDIA_STORAGE=s3: objects in one bucket of any S3-compatible store, which several instances
 * share. A put of less than one part is one PutObject; a bigger one is a multipart upload of
 * 8 MiB parts, sent one at a time as the body arrives, and aborted when the body or the store
 * fails, so that no object (and, on stores that honour the abort, no part) is left. The ETag is
 * the store's.
 */
export class S3MediaStorage extends MediaStorage implements OnApplicationShutdown {
  private readonly logger = new Logger('MediaStorage');
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly listPageSize: number | undefined;

  constructor(options: S3MediaStorageOptions) {
    super();
    this.bucket = options.bucket;
    this.listPageSize = options.listPageSize;
    this.client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: options.credentials,
      // Checksums only where S3 demands them: many S3-compatible stores reject or mishandle the
      // CRC32 trailers that newer SDKs add to every upload by default.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Readable, contentType: string): Promise<StoredObject> {
    checkKey(key);
    // Memory: the body is read part by part and never whole. One part (8 MiB) is held while it is
    // sent (reading waits meanwhile), and the next is gathered only once it has gone; a sent part
    // is let go when the loop moves on. A part in a Buffer (not a stream) is also what lets the
    // SDK retry a request that failed on the way.
    let uploadId: string | undefined;
    const completed: CompletedPart[] = [];
    let size = 0;
    try {
      for await (const part of partsOf(body)) {
        if (uploadId === undefined && part.last) {
          const answer = await this.client.send(
            new PutObjectCommand({
              Bucket: this.bucket,
              Key: key,
              Body: part.bytes,
              ContentLength: part.bytes.length,
              ContentType: contentType,
            }),
          );
          return { size: part.bytes.length, etag: requireEtag(answer.ETag, key) };
        }
        if (uploadId === undefined) {
          const created = await this.client.send(
            new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
          );
          if (!created.UploadId) throw new Error(`The store started no multipart upload for ${key}`);
          uploadId = created.UploadId;
        }
        const partNumber = completed.length + 1;
        if (partNumber > MAX_PARTS) throw new Error(`${key} is too big for ${MAX_PARTS} parts of ${S3_PART_SIZE} bytes`);
        const sent = await this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: part.bytes,
            ContentLength: part.bytes.length,
          }),
        );
        completed.push({ PartNumber: partNumber, ETag: requireEtag(sent.ETag, key) });
        size += part.bytes.length;
      }
      if (uploadId === undefined) throw new Error('unreachable: a body always has a last part');
      const answer = await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: completed },
        }),
      );
      return { size, etag: requireEtag(answer.ETag, key) };
    } catch (error) {
      if (uploadId !== undefined) await this.abort(key, uploadId);
      throw error;
    }
  }

  /** A copy the store makes itself (CopyObject: no byte passes through the service), then a delete. */
  override async move(from: string, to: string, contentType: string): Promise<StoredObject | null> {
    checkKey(from);
    checkKey(to);
    try {
      const source = `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: source, ContentType: contentType, MetadataDirective: 'REPLACE' }));
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
    await this.delete(from);
    return this.stat(to);
  }

  async stat(key: string): Promise<StoredObject | null> {
    checkKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, etag: requireEtag(head.ETag, key) };
    } catch (error) {
      if (isMissingHead(error)) return null;
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable | null> {
    checkKey(key);
    let answer;
    try {
      answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw error;
    }
    // In Node the SDK's body is the HTTP response itself (an IncomingMessage), a Readable.
    const body = answer.Body as Readable | undefined;
    if (!body) return Readable.from([]);
    if (!range) return body;
    // Some stores answer a range they do not honour exactly (s3rver sends the whole object for
    // `bytes=0-0`): what was asked is cut from what was sent, and nothing else is passed on.
    const sentFrom = firstByteOf(answer.ContentRange);
    if (sentFrom > range.start) {
      body.destroy();
      throw new Error(`The store sent ${key} from byte ${sentFrom} when asked for ${range.start}-${range.end}`);
    }
    const wanted = range.end - range.start + 1;
    if (sentFrom === range.start && answer.ContentLength === wanted) return body;
    return slice(body, range.start - sentFrom, wanted);
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isNoSuchKey(error)) throw error;
    }
  }

  async *list(prefix: string): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const pages = paginateListObjectsV2(
      { client: this.client, pageSize: this.listPageSize },
      { Bucket: this.bucket, Prefix: prefix },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) yield { key: object.Key, modifiedAt: object.LastModified ?? new Date(0) };
      }
    }
  }

  /** Closes the client's connections; the storage is unusable afterwards. */
  close(): void {
    this.client.destroy();
  }

  onApplicationShutdown(): void {
    this.close();
  }

  /** Aborts a multipart upload; a store that cannot (or an abort that fails) is logged, not thrown. */
  private async abort(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      // The object was never completed, so nothing is under the key; the parts stay until the
      // bucket's lifecycle rule (AbortIncompleteMultipartUpload) removes them.
      this.logger.warn(`Could not abort the multipart upload of ${key}: ${(error as Error).message}`);
    }
  }
}

interface Part {
  bytes: Buffer;
  /** Whether the body ended with this part. */
  last: boolean;
}

/**
 * The body cut into parts of S3_PART_SIZE bytes (the last one shorter). A part is yielded only
 * when the next chunk has been seen or the body has ended, so the caller knows whether it is the
 * last, and a body smaller than one part can be sent with one PutObject.
 */
async function* partsOf(body: Readable): AsyncGenerator<Part, void, undefined> {
  let chunks: Buffer[] = [];
  let filled = 0;
  let full: Buffer | undefined;
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    while (bytes.length > 0) {
      if (full) {
        yield { bytes: full, last: false };
        full = undefined;
      }
      const taken = bytes.subarray(0, S3_PART_SIZE - filled);
      chunks.push(taken);
      filled += taken.length;
      bytes = bytes.subarray(taken.length);
      if (filled === S3_PART_SIZE) {
        full = Buffer.concat(chunks, filled);
        chunks = [];
        filled = 0;
      }
    }
  }
  if (full) {
    yield { bytes: full, last: filled === 0 };
  }
  if (filled > 0 || !full) yield { bytes: Buffer.concat(chunks, filled), last: true };
}

/** The bytes `skip` to `skip + take - 1` of `source`; an error if it ends before them. */
function slice(source: Readable, skip: number, take: number): Readable {
  async function* cut(): AsyncGenerator<Buffer> {
    let toSkip = skip;
    let left = take;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let bytes = chunk;
      if (toSkip > 0) {
        const skipped = Math.min(toSkip, bytes.length);
        bytes = bytes.subarray(skipped);
        toSkip -= skipped;
      }
      if (bytes.length === 0) continue;
      if (bytes.length >= left) {
        yield bytes.subarray(0, left);
        return; // leaving the loop destroys the source: the rest is not read
      }
      left -= bytes.length;
      yield bytes;
    }
    if (left > 0) throw new Error('The store sent fewer bytes than the range holds');
  }
  return Readable.from(cut(), { objectMode: false });
}

/** The first byte of a `Content-Range: bytes a-b/size`; 0 when the store sent the whole object. */
function firstByteOf(contentRange: string | undefined): number {
  const match = contentRange ? /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(contentRange.trim()) : null;
  return match ? Number(match[1]) : 0;
}

function requireEtag(etag: string | undefined, key: string): string {
  if (!etag) throw new Error(`The store gave no ETag for ${key}`);
  return etag;
}

function checkKey(key: string): void {
  if (key === '' || key.startsWith('/')) throw new Error(`Not a media storage key: ${JSON.stringify(key)}`);
}

/** The store's answer that the key has no object (a missing bucket is `NoSuchBucket`, an error). */
function isNoSuchKey(error: unknown): boolean {
  return (error as { name?: string }).name === 'NoSuchKey';
}

/**
 * A 404 of HeadObject. It has no body, so a missing bucket looks the same as a missing key: a
 * stat in a bucket that is not there is null, and the read, put or list beside it fails.
 */
function isMissingHead(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'NotFound' || failure.name === 'NoSuchKey' || failure.$metadata?.httpStatusCode === 404;
}
