import type sharpModule from 'sharp';

type SharpFunction = typeof sharpModule;

let loading: Promise<SharpFunction> | undefined;

/**
 * sharp (libvips), loaded on the first image: an instance that never sees an upload or a
 * variant job does not map libvips (about 20 MB of resident memory, and time at start-up).
 * Its cache is off: every image is read once, and a cache would only hold memory.
 */
export function loadSharp(): Promise<SharpFunction> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    sharp.cache(false);
    return sharp;
  });
  return loading;
}
