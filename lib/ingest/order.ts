/**
 * Strings in code point order: the order of their UTF-8 bytes, which is how the database sorts
 * text under the "C" collation. JavaScript's default sort compares UTF-16 code units instead, and
 * the two disagree where a character beyond U+FFFF (a surrogate pair) meets one in U+E000–U+FFFF.
 * Lists that both the mappers and a SQL statement sort (a session's trace ids) use this order, so
 * a session written whole and one merged export by export list the same ids in the same order.
 */
export function byCodePoint(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only code units from a surrogate pair (U+D800–U+DFFF) sort out of code point order against
    // U+E000–U+FFFF: lift them above every other unit.
    const rank = (u: number) => (u >= 0xd800 && u <= 0xdfff ? u + 0x2000 : u >= 0xe000 ? u - 0x800 : u);
    return rank(x) - rank(y);
  }
  return a.length - b.length;
}
