const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()`, built from the date's UTC fields: V8's own formats through a slower
 * runtime call (about 420 ns against 160 here), and every resource view turns two to five
 * timestamps into text. Years before 1000 (zero-padded there) or after 9999 (written with a sign
 * and six digits) and invalid dates (refused with a RangeError) go to toISOString itself.
 */
export function isoText(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return `${year}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${three(date.getUTCMilliseconds())}Z`;
}
