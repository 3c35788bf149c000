/** The image types an upload may be (CONTRACT §14), as sharp names their formats. */
export const IMAGE_TYPES = {
  'image/jpeg': { format: 'jpeg' },
  'image/png': { format: 'png' },
  'image/gif': { format: 'gif' },
  'image/webp': { format: 'webp' },
  'image/avif': { format: 'heif' },
} as const;

export type ImageType = keyof typeof IMAGE_TYPES;

/** Bytes enough to tell every accepted type from its start (an AVIF's brands included). */
export const SNIFF_BYTES = 32;

const ascii = (bytes: Buffer, start: number, end: number) => bytes.subarray(start, end).toString('latin1');

/**
 * The type of a file from its first bytes (magic numbers), never from its name or a header:
 * JPEG (FF D8 FF), PNG (its 8-byte signature), GIF (GIF87a, GIF89a), WebP (RIFF….WEBP), AVIF (an
 * ISO-BMFF `ftyp` box whose major or a compatible brand is `avif` or `avis`). Null for anything
 * else (SVG, HTML, a script…) and for too few bytes to tell.
 */
export function sniffImageType(head: Buffer): ImageType | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 6 && (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a')) return 'image/gif';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  if (head.length >= 16 && ascii(head, 4, 8) === 'ftyp') {
    const boxSize = head.readUInt32BE(0);
    const end = Math.min(head.length, boxSize);
    const brands = [ascii(head, 8, 12)];
    for (let offset = 16; offset + 4 <= end; offset += 4) brands.push(ascii(head, offset, offset + 4));
    if (brands.includes('avif') || brands.includes('avis')) return 'image/avif';
  }
  return null;
}
