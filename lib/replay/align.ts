/**
 * Longest common subsequence of two sequences of small integers (interned
 * signatures), as a monotone matching: Myers' O((N+M)·D) algorithm in linear
 * space (the middle-snake bisection), after two reductions that keep every
 * longest common subsequence:
 *
 *  - elements whose code does not occur on the other side at all cannot be
 *    matched, so they are set aside before the search (GNU diff does the same
 *    with lines that match nothing). A branch whose every tool call was sent
 *    other arguments has a new cache key at each call: none of them can match,
 *    and what is left (the model steps) aligns at once. Without this the search
 *    costs N·D with D the number of such calls: quadratic when every call changed;
 *  - common ends are trimmed at each level of the bisection.
 *
 * So the cost is O(N+M) plus (N+M)·D for D differences among the elements that
 * can match (a reordering), never (N+M)² for differences that cannot.
 */

/** Counts of the work done, for tests that check how it grows (timing is not a test). */
export interface AlignStats {
  /** Diagonals extended and elements compared. */
  steps: number;
}

/**
 * The matched index pairs of a longest common subsequence of `a` and `b`, in
 * order, flattened: `[i0, j0, i1, j1, …]` with both indices increasing. Codes
 * are integers in [0, `codes`).
 */
export function matchSequences(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  codes: number,
  stats: AlignStats = { steps: 0 },
): number[] {
  const inA = new Uint8Array(codes);
  const inB = new Uint8Array(codes);
  for (let i = 0; i < a.length; i++) inA[a[i]!] = 1;
  for (let j = 0; j < b.length; j++) inB[b[j]!] = 1;
  const keptA: number[] = [];
  const keptB: number[] = [];
  for (let i = 0; i < a.length; i++) if (inB[a[i]!] === 1) keptA.push(i);
  for (let j = 0; j < b.length; j++) if (inA[b[j]!] === 1) keptB.push(j);
  stats.steps += a.length + b.length;
  const ra = Int32Array.from(keptA, (i) => a[i]!);
  const rb = Int32Array.from(keptB, (j) => b[j]!);
  const reduced: number[] = [];
  solve(ra, rb, 0, ra.length, 0, rb.length, reduced, stats);
  for (let k = 0; k < reduced.length; k += 2) {
    reduced[k] = keptA[reduced[k]!]!;
    reduced[k + 1] = keptB[reduced[k + 1]!]!;
  }
  return reduced;
}

/** Matches of a[a0, a1) and b[b0, b1) appended to `out` in order. */
function solve(
  a: Int32Array,
  b: Int32Array,
  a0: number,
  a1: number,
  b0: number,
  b1: number,
  out: number[],
  stats: AlignStats,
): void {
  while (a0 < a1 && b0 < b1 && a[a0] === b[b0]) {
    out.push(a0++, b0++);
    stats.steps++;
  }
  let tail = 0;
  while (a1 - tail > a0 && b1 - tail > b0 && a[a1 - 1 - tail] === b[b1 - 1 - tail]) tail++;
  stats.steps += tail;
  const ea = a1 - tail;
  const eb = b1 - tail;
  if (a0 < ea && b0 < eb) {
    const split = bisect(a, b, a0, ea, b0, eb, stats);
    if (split !== null) {
      solve(a, b, a0, split[0], b0, split[1], out, stats);
      solve(a, b, split[0], ea, split[1], eb, out, stats);
    }
  }
  for (let k = 0; k < tail; k++) out.push(ea + k, eb + k);
}

/**
 * A point on a shortest edit path of a[a0, a1) into b[b0, b1) where the
 * forward and the backward searches meet (Myers 1986, §4b; as in
 * diff-match-patch's bisect), or null when the two share no element. Both
 * ranges are non-empty and have no common first or last element.
 */
function bisect(
  a: Int32Array,
  b: Int32Array,
  a0: number,
  a1: number,
  b0: number,
  b1: number,
  stats: AlignStats,
): [number, number] | null {
  const n = a1 - a0;
  const m = b1 - b0;
  const maxD = Math.ceil((n + m) / 2);
  const offset = maxD;
  const size = 2 * maxD + 2;
  const v1 = new Int32Array(size).fill(-1);
  const v2 = new Int32Array(size).fill(-1);
  v1[offset + 1] = 0;
  v2[offset + 1] = 0;
  const delta = n - m;
  // With an odd delta the paths meet on a forward extension, with an even one on a backward one.
  const front = delta % 2 !== 0;
  let k1start = 0;
  let k1end = 0;
  let k2start = 0;
  let k2end = 0;
  for (let d = 0; d < maxD; d++) {
    for (let k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
      const k1o = offset + k1;
      let x1 = k1 === -d || (k1 !== d && v1[k1o - 1]! < v1[k1o + 1]!) ? v1[k1o + 1]! : v1[k1o - 1]! + 1;
      let y1 = x1 - k1;
      stats.steps++;
      while (x1 < n && y1 < m && a[a0 + x1] === b[b0 + y1]) {
        x1++;
        y1++;
        stats.steps++;
      }
      v1[k1o] = x1;
      if (x1 > n) k1end += 2;
      else if (y1 > m) k1start += 2;
      else if (front) {
        const k2o = offset + delta - k1;
        if (k2o >= 0 && k2o < size && v2[k2o] !== -1 && x1 >= n - v2[k2o]!) return [a0 + x1, b0 + y1];
      }
    }
    for (let k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
      const k2o = offset + k2;
      let x2 = k2 === -d || (k2 !== d && v2[k2o - 1]! < v2[k2o + 1]!) ? v2[k2o + 1]! : v2[k2o - 1]! + 1;
      let y2 = x2 - k2;
      stats.steps++;
      while (x2 < n && y2 < m && a[a1 - 1 - x2] === b[b1 - 1 - y2]) {
        x2++;
        y2++;
        stats.steps++;
      }
      v2[k2o] = x2;
      if (x2 > n) k2end += 2;
      else if (y2 > m) k2start += 2;
      else if (!front) {
        const k1o = offset + delta - k2;
        if (k1o >= 0 && k1o < size && v1[k1o] !== -1) {
          const x1 = v1[k1o]!;
          const y1 = offset + x1 - k1o;
          if (x1 >= n - x2) return [a0 + x1, b0 + y1];
        }
      }
    }
  }
  return null;
}

/**
 * Levenshtein distance (substitutions, insertions, deletions) in O((n+m)·d)
 * for a distance d: common ends trimmed, then the dynamic programme over a
 * diagonal band of half-width t, with t doubled until the distance found is
 * within it (Ukkonen: a path of cost ≤ t never leaves that band).
 */
export function editDistance(a: readonly string[], b: readonly string[], stats: AlignStats = { steps: 0 }): number {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  stats.steps += start + (a.length - endA);
  if (n === 0) return m;
  if (m === 0) return n;
  const intern = new Map<string, number>();
  const code = (s: string) => {
    let c = intern.get(s);
    if (c === undefined) intern.set(s, (c = intern.size));
    return c;
  };
  const x = Int32Array.from({ length: n }, (_, i) => code(a[start + i]!));
  const y = Int32Array.from({ length: m }, (_, j) => code(b[start + j]!));
  for (let t = Math.max(1, Math.abs(n - m)); ; t *= 2) {
    const d = bandedDistance(x, y, t, stats);
    if (d <= t) return d;
  }
}

/** The distance when it is at most t, else some value above t. */
function bandedDistance(x: Int32Array, y: Int32Array, t: number, stats: AlignStats): number {
  const n = x.length;
  const m = y.length;
  const over = t + 1;
  let prev = new Int32Array(m + 2).fill(over);
  let curr = new Int32Array(m + 2).fill(over);
  for (let j = 0; j <= Math.min(m, t); j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    const lo = Math.max(1, i - t);
    const hi = Math.min(m, i + t);
    curr[lo - 1] = lo === 1 && i <= t ? i : over;
    const xi = x[i - 1];
    for (let j = lo; j <= hi; j++) {
      const sub = prev[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = curr[j - 1]! + 1;
      const v = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
      curr[j] = v > over ? over : v;
    }
    stats.steps += hi - lo + 1;
    // The next row reads one cell past this band: it must not be a value left from two rows before.
    if (hi + 1 <= m) curr[hi + 1] = over;
    [prev, curr] = [curr, prev];
  }
  return prev[m]!;
}
