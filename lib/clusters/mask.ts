// ---------------------------------------------------------------------------
// An error message as a template: the parts that differ between runs of one
// failure (ids, uuids, hex, numbers, timestamps, quoted values, paths, URLs,
// emails) replaced by a placeholder, the wording kept. Written as one pass over
// the text with no regular expressions: error messages are attacker-controlled
// (a tool echoes what a user typed), and a backtracking pattern over them is a
// denial of service. Every character is visited a bounded number of times:
// the scanner only moves forward, and a quote's closing search either
// consumes up to what it finds or records that no closing quote follows, so
// it is not repeated (the operation count is returned for the tests).
// ---------------------------------------------------------------------------

export type Placeholder = "<str>" | "<url>" | "<path>" | "<email>" | "<uuid>" | "<ts>" | "<num>" | "<hex>" | "<id>";

/** The closing quote of an opening one (straight quotes close themselves), or -1. */
function closingQuote(c: number): number {
  switch (c) {
    case 34: // "
    case 39: // '
    case 96: // `
      return c;
    case 0x201c: // “ ”
      return 0x201d;
    case 0x2018: // ‘ ’
      return 0x2019;
    default:
      return -1;
  }
}

function isSpace(c: number): boolean {
  return (
    c <= 0x20 ||
    c === 0x7f ||
    c === 0xa0 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isAsciiLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
/** A letter, digit or anything outside ASCII (words in any script): what may stand right before a quote that is an apostrophe. */
function isWordChar(c: number): boolean {
  return isDigit(c) || isAsciiLetter(c) || c === 95 || c > 0x7f;
}
/** Characters that end a token without being part of it. */
function isDelimiter(c: number): boolean {
  // , ; ( ) [ ] { } < > = | and the quotes
  return (
    c === 44 ||
    c === 59 ||
    c === 40 ||
    c === 41 ||
    c === 91 ||
    c === 93 ||
    c === 123 ||
    c === 125 ||
    c === 60 ||
    c === 62 ||
    c === 61 ||
    c === 124 ||
    c === 34 ||
    c === 39 ||
    c === 96 ||
    c === 0x201c ||
    c === 0x201d ||
    c === 0x2018 ||
    c === 0x2019
  );
}
/** Punctuation that ends a sentence or a label after a token ("not found.", "order 12:"), kept as text. */
function isTrailing(c: number): boolean {
  return c === 46 || c === 58 || c === 33 || c === 63;
}

export type MaskResult = { template: string; operations: number };

/** The message as a template (whitespace runs become one space, ends trimmed). */
export function maskMessage(message: string): string {
  return maskWithCount(message).template;
}

/** maskMessage, with the number of character visits it took (linear in the length: the tests bound it). */
export function maskWithCount(message: string): MaskResult {
  const out: string[] = [];
  let ops = 0;
  const n = message.length;
  /** Per closing quote: the index from which none follows (so the search is never repeated). */
  const noClosingFrom = new Map<number, number>();
  let pendingSpace = false;
  const emit = (text: string) => {
    if (pendingSpace && out.length > 0) out.push(" ");
    pendingSpace = false;
    out.push(text);
  };
  let i = 0;
  while (i < n) {
    ops++;
    const c = message.charCodeAt(i);
    if (isSpace(c)) {
      pendingSpace = true;
      i++;
      continue;
    }
    const ch = message[i]!;
    const close = closingQuote(c);
    // An apostrophe inside a word (can't) opens nothing.
    if (close !== -1 && !(c === 39 && i > 0 && isWordChar(message.charCodeAt(i - 1)))) {
      const blocked = noClosingFrom.get(close);
      const end = blocked !== undefined && blocked <= i + 1 ? -1 : message.indexOf(String.fromCharCode(close), i + 1);
      if (end === -1) {
        if (blocked === undefined || blocked > i + 1) {
          // Searched to the end once: no later quote of this kind can close either.
          noClosingFrom.set(close, i + 1);
          ops += n - i;
        }
        emit(ch);
        i++;
        continue;
      }
      ops += end - i;
      emit("<str>");
      i = end + 1;
      continue;
    }
    if (isDelimiter(c)) {
      emit(ch);
      i++;
      continue;
    }
    // A token: up to the next space or delimiter; trailing sentence punctuation stays text.
    let j = i;
    let url = false;
    while (j < n) {
      const d = message.charCodeAt(j);
      if (isSpace(d)) break;
      // A URL runs to the next space, double quote, backtick or angle bracket (none may stand in one
      // unencoded): its query (?a=1&b=(2)) and apostrophes are part of it.
      if (d === 58 && message.charCodeAt(j + 1) === 47 && message.charCodeAt(j + 2) === 47) url = true;
      if (url && !(d === 34 || d === 96 || d === 60 || d === 62 || d === 0x201c || d === 0x201d)) {
        j++;
        continue;
      }
      // A thousands separator (1,299.00) stays inside its number.
      const separator = d === 44 && j > i && isDigit(message.charCodeAt(j - 1)) && isDigit(message.charCodeAt(j + 1));
      if (isDelimiter(d) && !separator) break;
      j++;
    }
    ops += j - i;
    let end = j;
    while (!url && end > i && isTrailing(message.charCodeAt(end - 1))) end--;
    if (end === i) {
      emit(message.slice(i, j));
    } else {
      const masked = classify(message, i, end);
      emit(masked ?? message.slice(i, end));
      if (end < j) out.push(message.slice(end, j));
    }
    ops += j - i;
    i = j;
  }
  return { template: out.join(""), operations: ops };
}

/** What a token (message[from, to)) stands for, or null to keep it as text. Each test is one pass over the token. */
function classify(s: string, from: number, to: number): Placeholder | null {
  let digits = 0;
  let hexOnly = true;
  let hasScheme = false;
  let at = -1;
  let slashes = 0;
  let backslashes = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (isDigit(c)) digits++;
    if (!isHex(c)) hexOnly = false;
    if (c === 58 && k + 2 < to && s.charCodeAt(k + 1) === 47 && s.charCodeAt(k + 2) === 47) hasScheme = true;
    if (c === 64 && at === -1) at = k;
    if (c === 47) slashes++;
    if (c === 92) backslashes++;
  }
  const first = s.charCodeAt(from);
  if (hasScheme) return "<url>";
  if (at > from && s.indexOf(".", at) !== -1 && s.indexOf(".", at) < to - 1) return "<email>";
  if (
    first === 47 ||
    (first === 126 && s.charCodeAt(from + 1) === 47) ||
    (first === 46 && (s.charCodeAt(from + 1) === 47 || s.charCodeAt(from + 1) === 46)) ||
    (to - from > 2 && isAsciiLetter(first) && s.charCodeAt(from + 1) === 58 && s.charCodeAt(from + 2) === 92) ||
    backslashes > 0 ||
    slashes >= 2
  )
    return "<path>";
  if (digits === 0) return null;
  if (isUuid(s, from, to)) return "<uuid>";
  if (isTimestamp(s, from, to)) return "<ts>";
  if (to - from > 2 && first === 48 && (s.charCodeAt(from + 1) === 120 || s.charCodeAt(from + 1) === 88)) {
    let allHex = true;
    for (let k = from + 2; k < to; k++) if (!isHex(s.charCodeAt(k))) allHex = false;
    if (allHex) return "<hex>";
  }
  if (isNumber(s, from, to)) return "<num>";
  if (hexOnly && to - from >= 6) return "<hex>";
  // Letters and digits together: an order, run or ticket id (ord_4821, run_01JP6Q…, SUP-20931).
  return "<id>";
}

function isUuid(s: string, from: number, to: number): boolean {
  if (to - from !== 36) return false;
  for (let k = 0; k < 36; k++) {
    const c = s.charCodeAt(from + k);
    if (k === 8 || k === 13 || k === 18 || k === 23) {
      if (c !== 45) return false;
    } else if (!isHex(c)) return false;
  }
  return true;
}

/** 2025-03-11, 2025-03-11T14:02:07.412Z, 14:02:07, 14:02 (digits with date and time punctuation, shaped as one). */
function isTimestamp(s: string, from: number, to: number): boolean {
  const len = to - from;
  if (len >= 10 && isDigit(s.charCodeAt(from)) && s.charCodeAt(from + 4) === 45 && s.charCodeAt(from + 7) === 45) {
    for (let k = from; k < from + 4; k++) if (!isDigit(s.charCodeAt(k))) return false;
    for (let k = from + 10; k < to; k++) {
      const c = s.charCodeAt(k);
      // T, Z, digits, : . + - and a space-free offset
      if (!(isDigit(c) || c === 84 || c === 90 || c === 58 || c === 46 || c === 43 || c === 45)) return false;
    }
    return true;
  }
  // A time of day: hh:mm, hh:mm:ss, hh:mm:ss.fff (an hour of one or two digits).
  let colons = 0;
  let lead = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c === 58) colons++;
    else if (isDigit(c)) lead += colons === 0 ? 1 : 0;
    else if (!(c === 46 && colons >= 2)) return false;
  }
  return colons >= 1 && lead >= 1 && lead <= 2 && isDigit(s.charCodeAt(to - 1));
}

/** 42, -3.5, 1,299.00, $129.00, 12%, 30s, 500ms, 10MB, #4821: an optional sign or currency, digits, a short unit. */
function isNumber(s: string, from: number, to: number): boolean {
  let k = from;
  const c0 = s.charCodeAt(k);
  if (c0 === 43 || c0 === 45 || c0 === 36 || c0 === 35 || c0 === 0x20ac || c0 === 0xa3 || c0 === 0xa5) k++;
  const digitsFrom = k;
  while (k < to) {
    const c = s.charCodeAt(k);
    if (isDigit(c) || ((c === 46 || c === 44 || c === 95) && k > digitsFrom)) k++;
    else break;
  }
  if (k === digitsFrom || !isDigit(s.charCodeAt(k - 1))) return false;
  const unit = to - k;
  if (unit === 0) return true;
  if (unit === 1 && s.charCodeAt(k) === 37) return true;
  if (unit > 3) return false;
  for (let m = k; m < to; m++) if (!isAsciiLetter(s.charCodeAt(m))) return false;
  return true;
}
