import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';

/** Who waits for a slot: an upload being cleaned (someone waits for its answer), or a variant (background work). */
export type ImageWork = 'upload' | 'variant';

/**
 * The instance's MEDIA_CONCURRENCY slots for decoding images (CONTRACT §14): libvips holds up to
 * a whole picture per image it encodes, so this count, not the number of uploads arriving or
 * variants queued, bounds the memory images take. Uploads and variants share the slots; a slot
 * that frees goes to a waiting upload first, so a queue of variants never delays an answer.
 */
@Injectable()
export class ImageWorkSlots {
  private busy = 0;
  private readonly waiting: Record<ImageWork, (() => void)[]> = { upload: [], variant: [] };

  constructor(private readonly config: AppConfig) {}

  /** Runs `work` in a slot, once one is free. */
  async run<T>(kind: ImageWork, work: () => Promise<T>): Promise<T> {
    if (this.busy >= this.config.mediaConcurrency) await new Promise<void>((resolve) => this.waiting[kind].push(resolve));
    else this.busy++;
    try {
      return await work();
    } finally {
      const next = this.waiting.upload.shift() ?? this.waiting.variant.shift();
      // The slot passes on (the count stays), or it frees.
      if (next) next();
      else this.busy--;
    }
  }
}
