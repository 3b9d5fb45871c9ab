/**
 * Whether a JSON text nests arrays and objects deeper than `maxDepth`, found by scanning its bytes — never by parsing
 * it. A hostile body of a few megabytes (`{"a":{"a":…}}`) parses into a million objects and holds the event loop for
 * hundreds of milliseconds, and every recursive walk after it (variable coercion, JSON.stringify, a logger) overflows
 * the stack; this answers first, in one pass and without allocating.
 *
 * The bytes are UTF-8 (or any ASCII-compatible encoding): a multi-byte character never holds a byte below 0x80, so the
 * structural bytes `"` `\` `[` `]` `{` `}` are found byte by byte. Inside a string the scan jumps to the next quote
 * (Buffer#indexOf) and counts the backslashes before it, so a long string (base64 media, a document) costs a native
 * search, not a loop per byte. Malformed JSON is not this function's to judge: whatever it is, the parser says so next.
 */
export function jsonNestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
  // A text of n bytes nests at most n / 2 levels ([] per level).
  if (bytes.length <= maxDepth * 2) return false;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  for (let at = 0; at < buffer.length; at += 1) {
    const byte = buffer[at]!;
    if (byte === QUOTE) {
      at = stringEnd(buffer, at + 1);
      if (at === -1) return false;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return true;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return false;
}

/** The same test for text already decoded (a query-string parameter, a multipart field). */
export function jsonTextNestsDeeperThan(text: string, maxDepth: number): boolean {
  return text.length > maxDepth * 2 && jsonNestsDeeperThan(Buffer.from(text, 'utf8'), maxDepth);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The index of the quote that closes a string whose first byte is at `from`; -1 when it never closes. */
function stringEnd(buffer: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const quote = buffer.indexOf(QUOTE, at);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && buffer[quote - backslashes - 1] === BACKSLASH) backslashes += 1;
    // An even number of backslashes escape each other: the quote is the string's end.
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}
