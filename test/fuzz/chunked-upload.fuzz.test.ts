import { describe, it } from 'vitest';
import { chunkedSequences, createChunkedUploadDoor, metadataSequences, type Step } from '../support/fuzz/chunked-upload-door.ts';
import {
  createChunkedUploadV2Door,
  V2_GOOD_APPEND,
  v2ChunkedSequences,
  v2MetadataSequences,
  type V2Step,
} from '../support/fuzz/chunked-upload-v2-door.ts';
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
 *
 * The same for API v2's endpoints (initialize, {id}/append, {id}/finalize, STATUS by GET, and POST /2/media/metadata),
 * judged by v2's rules — 200 `{"data": …}` or a problem (application/problem+json) — on the same system, with media ids
 * from either version.
 */

const door = createChunkedUploadDoor();
const v2Door = createChunkedUploadV2Door();
const suite = useFuzzSystem('chunked-upload', 4, {}, () => {
  door.close();
  v2Door.close();
});

// A case is a sequence of up to a dozen commands plus its probes (about ten requests): a request bound each.
const REQUESTS_PER_CASE = 24;

describe('the chunked upload under hostile command sequences', () => {
  it(
    'answers hostile INIT/APPEND/FINALIZE/STATUS sequences',
    () => checkDoor('chunked sequences', door, suite.system, chunkedSequences, suite.tally),
    propertyTestTimeoutMs(REQUESTS_PER_CASE),
  );
  it(
    'answers hostile alt text requests',
    () => checkDoor('metadata', door, suite.system, metadataSequences, suite.tally),
    propertyTestTimeoutMs(REQUESTS_PER_CASE),
  );
  it(
    'answers hostile v2 initialize/append/finalize/STATUS sequences',
    () => checkDoor('v2 chunked sequences', v2Door, suite.system, v2ChunkedSequences, suite.tally),
    propertyTestTimeoutMs(REQUESTS_PER_CASE),
  );
  it(
    'answers hostile v2 media metadata requests',
    () => checkDoor('v2 metadata', v2Door, suite.system, v2MetadataSequences, suite.tally),
    propertyTestTimeoutMs(REQUESTS_PER_CASE),
  );
});

/**
 * Sequences the fuzz suite found, shrunk by hand to what still fails, run through the same oracles (format, bound, stored
 * data command by command, liveness on the same kept-alive connection and a fresh one, the uploads made before intact).
 */
describe('chunked upload regressions found by fuzzing', () => {
  it('refuses INIT with media_category=constructor instead of answering 500', async () => {
    // The category table was read with a plain lookup: "constructor" found Object.prototype's function, which passed as
    // a category and failed the session's insert (code 131, HTTP 500).
    const init: Step = {
      op: 'INIT',
      credential: { kind: 'bearer' },
      together: false,
      carrier: 'multipart',
      totalBytes: 0,
      mediaType: 'file',
      category: 'constructor',
      owners: null,
      shared: null,
    };
    await runFuzzCase(door, suite.system, { file: 'png', pieces: 1, steps: [init] });
  });

  it('answers a v2 append or finalize whose path id does not decode (%zz) with an invalid-request problem', async () => {
    // Express failed to decode the path parameter before any v2 route ran; the error went to the app's handler, which
    // answered in Area A's google.rpc.Status (application/json) instead of v2's problem.
    const append: V2Step = { ...V2_GOOD_APPEND, target: { kind: 'raw', text: '%zz' } };
    const finalize: V2Step = {
      op: 'FINALIZE',
      credential: { kind: 'bearer' },
      together: false,
      target: { kind: 'raw', text: '%zz' },
      body: '{}',
      contentType: 'application/json;charset=UTF-8',
    };
    await runFuzzCase(v2Door, suite.system, { file: 'png', pieces: 1, steps: [append, finalize] });
  });
});
