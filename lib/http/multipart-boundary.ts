/**
 * Checks the boundary of a multipart Content-Type before a parser is built on it. RFC 2046 §5.1.1 asks for 1 to 70
 * characters; busboy accepts an empty one (`boundary=` or `boundary=""`) and then never finishes a body of a few tens
 * of kilobytes (found by the fuzz suite: the request was held until the connection's idle timeout). Such a request is
 * answered at once as malformed instead.
 *
 * @returns why the boundary cannot be used, or undefined when it can.
 */
export function multipartBoundaryProblem(contentType: string | undefined): string | undefined {
  const match = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  if (!match) return 'the Content-Type has no boundary';
  const boundary = match[1] ?? match[2] ?? '';
  if (boundary.length === 0) return 'the boundary is empty';
  if (boundary.length > 70) return 'the boundary is longer than 70 characters';
  return undefined;
}
