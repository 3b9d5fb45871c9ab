import { describe, it } from 'vitest';
import { checkDoor, runFuzzCase } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';
import { createUploadDoor, uploadRequests } from '../support/fuzz/upload-door.ts';
import { createUploadV2Door, v2UploadRequests } from '../support/fuzz/upload-v2-door.ts';

/**
 * Fuzz of the image upload (Area D): every reply to a hostile multipart or urlencoded request is a media object or one of
 * the reference's two error bodies (no 5xx, no code 131), within the bound; a real upload still works afterwards on the
 * same and on a fresh connection; a refused upload stores nothing (no media row, beyond the reference's own bookkeeping).
 * The same on the v2 one-shot upload (POST /2/media/upload, JSON or multipart), judged by v2's rules: 200 `{"data": …}`
 * with the image, or a problem (application/problem+json) — on the same system, one media service under both versions.
 */

const door = createUploadDoor();
const v2Door = createUploadV2Door();
const suite = useFuzzSystem('upload', 2, {}, () => {
  door.close();
  v2Door.close();
});

describe('the image upload under hostile requests', () => {
  it(
    'answers hostile multipart and urlencoded uploads',
    () => checkDoor('uploads', door, suite.system, uploadRequests, suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile v2 one-shot uploads (JSON and multipart)',
    () => checkDoor('v2 uploads', v2Door, suite.system, v2UploadRequests, suite.tally),
    propertyTestTimeoutMs(),
  );
});

/**
 * Payloads the fuzz suite found, shrunk by hand to what still fails, run through the same oracles (format, bound,
 * liveness on the same kept-alive connection and a fresh one, nothing stored).
 */
describe('upload regressions found by fuzzing', () => {
  it('keeps a kept-alive connection usable after a multipart body that opens with its closing delimiter', async () => {
    // The parser finishes at the first "--b--"; the reply goes out at once, but the rest of the body is never read, so the
    // next request on the connection waits forever behind it.
    const body = Buffer.concat([
      Buffer.from('--b--\r\n--b\r\nContent-Disposition: form-data; name="x"\r\n\r\n'),
      Buffer.alloc(1_000_000, 'A'),
      Buffer.from('\r\n--b--\r\n'),
    ]);
    await runFuzzCase(door, suite.system, {
      build: (info) => ({
        method: 'POST',
        url: `${info.restUrl}/1.1/media/upload.json`,
        headers: { 'content-type': 'multipart/form-data; boundary=b', authorization: `Bearer ${info.social.tokens.own}` },
        body,
      }),
    });
  });

  it('answers a multipart upload with more than 100 fields of 20 KB each instead of never replying', async () => {
    // Past busboy's field limit (100) the parts that follow are neither read nor drained: a part larger than the stream's
    // buffer stalls the parse, and the request waits forever.
    const part = (index: number) => `--b\r\nContent-Disposition: form-data; name="x${index}"\r\n\r\n${'A'.repeat(20_000)}\r\n`;
    const body = Buffer.from(`${Array.from({ length: 101 }, (_, index) => part(index)).join('')}--b--\r\n`);
    await runFuzzCase(door, suite.system, {
      build: (info) => ({
        method: 'POST',
        url: `${info.restUrl}/1.1/media/upload.json`,
        headers: { 'content-type': 'multipart/form-data; boundary=b', authorization: `Bearer ${info.social.tokens.own}` },
        body,
      }),
    });
  });
});
