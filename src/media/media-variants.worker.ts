import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { imageInput, writeImage } from './image-input.js';
import { ImageWorkSlots } from './image-work-slots.js';
import { AppConfig } from '../config/app-config.js';
import { MediaRepository } from './media.repository.js';
import { MediaService, originalKey, variantKey, variantName } from './media.service.js';
import { MediaStorage } from './storage/media-storage.js';

/** How often the queue is looked at besides the wake-ups of this instance's uploads (another instance's uploads, stale claims). */
export const VARIANT_POLL_MS = 5000;
/** The temporary file of a filesystem write under way (FilesystemMediaStorage: `{key}.{uuid}.part`). */
const PARTIAL_FILE = /\.[0-9a-f-]{36}\.part$/;
/**
 * libwebp's effort (0-6, sharp's default 4): at 2 a 1920-pixel variant takes about 45 MB to
 * encode instead of 71 and a quarter less time, for files a few per cent larger.
 */
const VARIANT_WEBP_EFFORT = 2;
/** How long a claim holds: a job claimed longer ago (its instance died at work) is claimed again. */
export const VARIANT_LEASE_MS = 5 * 60_000;
/** Claims of one job before it is given up (an image libvips cannot resize). */
export const VARIANT_MAX_ATTEMPTS = 3;
/** How often storage is swept of files no item owns. */
export const SWEEP_INTERVAL_MS = 3_600_000;
/** How old such a file must be to go: older than any upload or deletion under way. */
export const SWEEP_AGE_MS = 3_600_000;
/** Item ids asked about per statement by the sweep. */
const SWEEP_BATCH = 500;

/**
 * Makes the variants of uploaded images in the background (CONTRACT §14): for each width of
 * MEDIA_VARIANT_WIDTHS narrower than the original, one WebP, streamed from the original through
 * sharp into storage, recorded in `media_variants`. The work is the `media_jobs` queue: claimed a
 * few at a time (MEDIA_CONCURRENCY at most at once on this instance; PostgreSQL skips the rows
 * another instance is claiming), deleted when done, claimed again when a claim outlives its lease
 * (an instance that died at work) or at start-up (what was queued while it was down). A variant is
 * recorded once whoever makes it (its row's primary key), and one already recorded is not made again.
 */
@Injectable()
export class MediaVariantsWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('MediaVariants');
  private timer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;
  private draining = false;
  /** The look at the queue under way: a shutdown waits for it, so that no claim is made after it and left to its lease. */
  private drainRun: Promise<void> = Promise.resolve();
  private again = false;
  /** Variants this instance made and recorded (their files stored): for the tests that count them. */
  made = 0;

  constructor(
    private readonly repository: MediaRepository,
    private readonly storage: MediaStorage,
    private readonly config: AppConfig,
    private readonly slots: ImageWorkSlots,
    private readonly media: MediaService,
  ) {
    media.onUpload(() => this.wake());
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), VARIANT_POLL_MS);
    this.timer.unref();
    this.wake();
    this.sweepTimer = setInterval(() => void this.sweepQuietly(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    void this.sweepQuietly();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.sweepTimer);
    await this.drainRun;
    await Promise.allSettled([...this.running]);
  }

  /** Looks at the queue now (again once the current look is over, if one is under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    this.drainRun = this.drain()
      .catch((error: unknown) => this.logger.warn(`Could not read the variant queue: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => {
        this.draining = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /**
   * Deletes from storage what no item owns and nothing is writing any more (older than
   * SWEEP_AGE_MS at `now`): the temporary copies of uploads an instance died during, the partial
   * files of writes that died half-way, and the files of items deleted without them (their
   * uploader deleted: the rows went by cascade). Returns how
   * many files went.
   */
  async sweep(now = new Date()): Promise<number> {
    const before = now.getTime() - SWEEP_AGE_MS;
    let deleted = 0;
    for await (const entry of this.storage.list('tmp/')) {
      if (entry.modifiedAt.getTime() >= before) continue;
      await this.storage.delete(entry.key);
      deleted++;
    }
    let batch = new Map<number, string[]>();
    const flush = async () => {
      const existing = await this.repository.existingIds([...batch.keys()]);
      for (const [id, keys] of batch) {
        if (existing.has(id)) continue;
        for (const key of keys) await this.storage.delete(key);
        deleted += keys.length;
      }
      batch = new Map();
    };
    for await (const entry of this.storage.list('media/')) {
      const id = /^media\/(\d+)\//.exec(entry.key)?.[1];
      if (id === undefined || entry.modifiedAt.getTime() >= before) continue;
      // A write that died half-way (filesystem: `{key}.{uuid}.part`), whoever owns the folder.
      if (PARTIAL_FILE.test(entry.key)) {
        await this.storage.delete(entry.key);
        deleted++;
        continue;
      }
      batch.set(Number(id), [...(batch.get(Number(id)) ?? []), entry.key]);
      if (batch.size >= SWEEP_BATCH) await flush();
    }
    if (batch.size > 0) await flush();
    if (deleted > 0) this.logger.log(`Swept ${deleted} file(s) no media item owns`);
    return deleted;
  }

  private async sweepQuietly(): Promise<void> {
    try {
      await this.sweep();
    } catch (error) {
      this.logger.warn(`Could not sweep media storage: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Resolves once no job of this instance is under way (tests). */
  async idle(): Promise<void> {
    while (this.draining || this.running.size > 0) await Promise.allSettled([...this.running, new Promise((resolve) => setTimeout(resolve, 20))]);
  }

  /** Claims jobs while there is room and work. */
  private async drain(): Promise<void> {
    while (!this.stopped) {
      const room = this.config.mediaConcurrency - this.running.size;
      if (room <= 0) {
        await Promise.race(this.running);
        continue;
      }
      const now = new Date();
      const claimed = await this.repository.claimJobs(room, now, new Date(now.getTime() - VARIANT_LEASE_MS));
      if (claimed.length === 0) return;
      for (const mediaId of claimed) {
        const job = this.process(mediaId).finally(() => this.running.delete(job));
        this.running.add(job);
      }
    }
  }

  private async process(mediaId: number): Promise<void> {
    try {
      if (!(await this.makeVariants(mediaId))) {
        // Stopped half-way: the job goes back to the queue for the next instance (or this one's next start).
        await this.repository.releaseJob(mediaId);
        return;
      }
      await this.repository.finishJob(mediaId);
    } catch (error) {
      const attempts = await this.repository.jobAttempts(mediaId).catch(() => null);
      const message = error instanceof Error ? error.message : String(error);
      if (attempts !== null && attempts >= VARIANT_MAX_ATTEMPTS) {
        this.logger.error(`Gave up the variants of media ${mediaId} after ${attempts} attempts: ${message}`);
        await this.repository.finishJob(mediaId).catch(() => undefined);
      } else {
        this.logger.warn(`Could not make the variants of media ${mediaId} (tried again after the lease): ${message}`);
      }
    }
  }

  /** Makes what is missing of an item's variants; false when the instance stopped before all were made. */
  private async makeVariants(mediaId: number): Promise<boolean> {
    const [media] = await this.repository.findWithVisibility([mediaId]);
    // Deleted meanwhile: nothing to make.
    if (!media) return true;
    const existing = new Set(await this.repository.variantNames(mediaId));
    // The variants a body's srcset names for it (MediaService.plannedVariants): each width narrower than the original.
    for (const { width } of this.media.plannedVariants(media)) {
      if (this.stopped) return false;
      const name = variantName(width);
      if (existing.has(name)) continue;
      const made = await this.slots.run('variant', async () => {
        const input = await imageInput(this.storage, originalKey(mediaId), { limitInputPixels: this.config.mediaMaxPixels, animated: false });
        if (!input) return null;
        const resizer = input.image.resize({ width, withoutEnlargement: true }).webp({ quality: 80, effort: VARIANT_WEBP_EFFORT });
        return writeImage(this.storage, variantKey(mediaId, name), resizer, 'image/webp');
      });
      if (!made) return true;
      const { stored, info } = made;
      try {
        if (await this.repository.insertVariant({ mediaId, name, width: info.width, height: info.height, mimeType: 'image/webp', size: stored.size })) this.made++;
      } catch (error) {
        // The item was deleted meanwhile (its row is gone): so goes the file just made.
        await this.storage.delete(variantKey(mediaId, name)).catch(() => undefined);
        throw error;
      }
    }
    return true;
  }
}
