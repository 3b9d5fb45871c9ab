import fc from 'fast-check';

/**
 * How a failing request is shown: as a curl command (HTTP doors) or escaped bytes (raw doors), shortened where a body is
 * long — the full value is in the property's seed and path — so that the report can be read and the payload replayed.
 */

const MAX_SHOWN = 1_500;

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Bytes as a readable string: printable ASCII as is, everything else escaped. */
export function escapeBytes(bytes: Buffer | string, max = MAX_SHOWN): string {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const shown = buffer.subarray(0, max);
  let out = '';
  for (const byte of shown) {
    if (byte === 0x0d) out += '\\r';
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return buffer.length > max ? `${out}… (${buffer.length} bytes in all)` : out;
}

/** Describes a body: text when it is short UTF-8, otherwise its size and its start. */
export function describeBody(body: Buffer | string | undefined): string {
  if (body === undefined) return '';
  const buffer = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (buffer.length <= MAX_SHOWN && !buffer.includes(0) && Buffer.from(buffer.toString('utf8'), 'utf8').equals(buffer)) {
    return ` --data-binary ${shellQuote(buffer.toString('utf8'))}`;
  }
  return ` --data-binary <${buffer.length} bytes: "${escapeBytes(buffer, 300)}">`;
}

export function describeHttpRequest(
  method: string,
  url: string,
  headers: Record<string, string | string[]>,
  body?: Buffer | string,
): string {
  const shownUrl = url.length > MAX_SHOWN ? `${url.slice(0, MAX_SHOWN)}… (${url.length} characters)` : url;
  const headerText = Object.entries(headers)
    .flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).map(
        (one) => ` -H ${shellQuote(`${name}: ${one.length > 300 ? `${one.slice(0, 300)}… (${one.length})` : one}`)}`,
      ),
    )
    .join('');
  return `curl -X ${method} ${shellQuote(shownUrl)}${headerText}${describeBody(body)}`;
}

/** Gives a generated value a short text for fast-check's own report (its default would print megabytes). */
export function withShortText<T extends object>(value: T, text: (value: T) => string): T {
  Object.defineProperty(value, fc.toStringMethod, { value: () => text(value), enumerable: false, configurable: true });
  return value;
}

/** A compact, bounded JSON-ish rendering of a generated value (long strings cut). */
export function shortStringify(value: unknown, max = 2_000): string {
  // Cycles only: the same object twice in a list (a repeated part) is printed each time.
  const ancestors: object[] = [];
  const text = JSON.stringify(value, function (this: unknown, _key, item: unknown) {
    if (typeof item === 'string' && item.length > 200) return `${item.slice(0, 200)}…(${item.length})`;
    if (Buffer.isBuffer(item)) return `<${item.length} bytes>`;
    if (item && typeof item === 'object' && 'type' in item && (item as { type: unknown }).type === 'Buffer') return '<bytes>';
    if (Array.isArray(item) && item.length > 20) return [...item.slice(0, 20), `…(${item.length} items)`];
    if (typeof item === 'bigint') return `${item}n`;
    if (item && typeof item === 'object') {
      while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
      if (ancestors.includes(item)) return '<cycle>';
      ancestors.push(item);
    }
    return item;
  });
  return text === undefined ? String(value) : text.length > max ? `${text.slice(0, max)}…` : text;
}
