import { describe, it } from 'vitest';
import { chunkedSequences, createChunkedUploadDoor, metadataSequences, type Step } from '../support/fuzz/chunked-upload-door.ts';
import { checkDoor, runFuzzCase } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';

/**
 * Fuzz of the chunked upload (Area D, the reference's §8) and of alt text: sequences of INIT, APPEND, FINALIZE and STATUS
 * — in order, out of order, damaged, concurrent, on other users', expired or finished media ids — and metadata
 * requests. Every reply is a media object, an empty 204/200 or one of the reference's two error bodies (no 5xx, no code
 * 131) within the bound; a refused command stores and removes nothing; a finalized id takes no more segments; processing
 * ends; a real chunked upload still works afterwards on the same and a fresh connection; and the uploads finished before
 * the case are still there, unchanged.
 */

const door = createChunkedUploadDoor();
const suite = useFuzzSystem('chunked-upload', 2, {}, () => door.close());

// A case is a sequence of up to a dozen commands plus its probes (about ten requests): a request bound each.
const REQUESTS_PER_CASE = 24;

describe('the chunked upload under hostile command sequences', () => {
  it('answers hostile INIT/APPEND/FINALIZE/STATUS sequences', () => checkDoor('chunked sequences', door, suite.system, chunkedSequences, suite.tally), propertyTestTimeoutMs(REQUESTS_PER_CASE));
  it('answers hostile alt text requests', () => checkDoor('metadata', door, suite.system, metadataSequences, suite.tally), propertyTestTimeoutMs(REQUESTS_PER_CASE));
});

/**
 * Sequences the fuzz suite found, shrunk by hand to what still fails, run through the same oracles (format, bound, stored
 * data command by command, liveness on the same kept-alive connection and a fresh one, the uploads made before intact).
 */
describe('chunked upload regressions found by fuzzing', () => {
  it('refuses INIT with media_category=constructor instead of answering 500', async () => {
    // The category table was read with a plain lookup: "constructor" found Object.prototype's function, which passed as
    // a category and failed the session's insert (code 131, HTTP 500).
    const init: Step = { op: 'INIT', credential: { kind: 'bearer' }, together: false, carrier: 'multipart', totalBytes: 0, mediaType: 'file', category: 'constructor', owners: null, shared: null };
    await runFuzzCase(door, suite.system, { file: 'png', pieces: 1, steps: [init] });
  });
});
