import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { ImageWorkSlots } from './image-work-slots.js';

const slotsOf = (mediaConcurrency: number) => new ImageWorkSlots({ mediaConcurrency } as AppConfig);

/** Work that runs until `release` is called, recording when it starts. */
function gate(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => (log.push(name), done), release: () => release() };
}

describe('ImageWorkSlots', () => {
  it('runs at most MEDIA_CONCURRENCY at once', async () => {
    const slots = slotsOf(2);
    let running = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 7 }, (_, index) =>
        slots.run(index % 2 ? 'upload' : 'variant', async () => {
          most = Math.max(most, ++running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          running--;
        }),
      ),
    );
    expect(most).toBe(2);
  });

  it('gives a freed slot to a waiting upload before a waiting variant, each kind in order', async () => {
    const slots = slotsOf(1);
    const log: string[] = [];
    const first = gate(log, 'variant 1');
    const running = slots.run('variant', first.work);
    const rest = [slots.run('variant', async () => void log.push('variant 2')), slots.run('upload', async () => void log.push('upload 1')), slots.run('upload', async () => void log.push('upload 2'))];
    await Promise.resolve();
    expect(log).toEqual(['variant 1']);
    first.release();
    await Promise.all([running, ...rest]);
    expect(log).toEqual(['variant 1', 'upload 1', 'upload 2', 'variant 2']);
  });

  it('frees the slot when the work fails', async () => {
    const slots = slotsOf(1);
    await expect(slots.run('upload', () => Promise.reject(new Error('corrupt')))).rejects.toThrow('corrupt');
    expect(await slots.run('variant', async () => 'ran')).toBe('ran');
  });
});
