import { describe, expect, it } from 'vitest';
import { sniffImageType } from './image-type.js';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))));

describe('sniffImageType', () => {
  it.each([
    ['image/jpeg', bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF')],
    ['image/png', bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'IHDR')],
    ['image/gif', bytes('GIF89a', [1, 0, 1, 0])],
    ['image/gif', bytes('GIF87a', [1, 0, 1, 0])],
    ['image/webp', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 ')],
    ['image/avif', bytes([0, 0, 0, 0x1c], 'ftypavif', [0, 0, 0, 0], 'avifmif1miaf')],
    ['image/avif', bytes([0, 0, 0, 0x1c], 'ftypmif1', [0, 0, 0, 0], 'mif1avifmiaf')],
  ])('reads %s from its magic number', (type, head) => {
    expect(sniffImageType(head)).toBe(type);
  });

  it.each([
    ['an SVG', bytes('<svg xmlns="http://www.w3.org/2000/svg">')],
    ['HTML', bytes('<!doctype html><script>alert(1)</script>')],
    ['a script', bytes('#!/bin/sh\nrm -rf /')],
    ['HEIC (an ftyp of another brand)', bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0], 'mif1heic')],
    ['a brand past the ftyp box', bytes([0, 0, 0, 0x10], 'ftypmif1', [0, 0, 0, 0], 'avif')],
    ['a RIFF that is no WebP', bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt ')],
    ['two bytes of a JPEG', bytes([0xff, 0xd8])],
    ['nothing', bytes()],
  ])('refuses %s', (_name, head) => {
    expect(sniffImageType(head)).toBeNull();
  });
});
