import { describe, it } from 'vitest';
import { checkDoor, runFuzzCase } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';
import { RawHttpDoor, rawHttpRequests, type Listener, type RawHttpModel } from '../support/fuzz/raw-http-door.ts';

/**
 * Fuzz of raw HTTP/1.1 on every HTTP listener (REST own-login host with Areas A and D, the parent-platform host, the
 * gateway): header floods, bad framing, chunked-encoding errors, slow and partial requests, pipelining. Every reply is a
 * complete reply in one of the listener's formats (never an empty 400/431), every complete request is answered, and
 * each listener still answers /health afterwards — on the same connection when it kept it, and on a fresh one.
 */

const door = new RawHttpDoor();
const suite = useFuzzSystem('raw-http', 3);

describe('the HTTP listeners under raw hostile bytes', () => {
  it(
    'answers the REST own-login listener',
    () => checkDoor('rest listener', door, suite.system, rawHttpRequests('rest'), suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers the parent-platform listener',
    () => checkDoor('parent listener', door, suite.system, rawHttpRequests('parent'), suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers the gateway listener',
    () => checkDoor('gateway listener', door, suite.system, rawHttpRequests('gateway'), suite.tally),
    propertyTestTimeoutMs(),
  );
});

/** One request, written at once, on one listener: base 0 is GET /health on every listener. */
function oneRequest(listener: Listener, mutations: RawHttpModel['requests'][number]['mutations']): RawHttpModel {
  return { listener, requests: [{ base: 0, mutations }], delivery: 'whole', pieceSize: 1, delayMs: 0, endAfterWrite: false };
}

/** Payloads the fuzz suite found, run through the same oracles. */
describe('raw HTTP regressions found by fuzzing', () => {
  it.each(['rest', 'parent', 'gateway'] as const)(
    "answers an HTTP/1.1 request without Host in the %s listener's format (not an empty 400)",
    (listener) => runFuzzCase(door, suite.system, oneRequest(listener, [{ kind: 'drop-host' }])),
  );
  it.each(['rest', 'parent', 'gateway'] as const)(
    "answers an unknown Expect header in the %s listener's format (not an empty 417)",
    (listener) => runFuzzCase(door, suite.system, oneRequest(listener, [{ kind: 'header', name: 'Expect', value: 'h2c' }])),
  );
  it("answers an unknown path on the gateway listener in GraphQL's format (not an HTML page)", () =>
    runFuzzCase(door, suite.system, oneRequest('gateway', [{ kind: 'request-line', line: 'PUT /api/v1/userExample/1 HTTP/1.1' }])));
  // One listener is enough: the three share lib/http/http-server.ts, and each case waits out the request bound.
  it(
    "answers a request whose promised body never comes with a 408 in the listener's format, within the bound",
    () =>
      runFuzzCase(
        door,
        suite.system,
        oneRequest('rest', [
          { kind: 'framing', variant: 'cl-twice' },
          { kind: 'request-line', line: 'PUT /api/v1/userExample/1 HTTP/1.1' },
        ]),
      ),
    15_000,
  );
  it.each(['rest', 'parent', 'gateway'] as const)('answers CONNECT on the %s listener instead of dropping the connection', (listener) =>
    runFuzzCase(door, suite.system, oneRequest(listener, [{ kind: 'request-line', line: 'CONNECT localhost:80 HTTP/1.1' }])),
  );
  it.each(['rest', 'parent', 'gateway'] as const)(
    'answers a pipelined request that does not parse after the one before it on the %s listener (not a dropped connection)',
    (listener) =>
      runFuzzCase(door, suite.system, {
        listener,
        requests: [
          { base: 0, mutations: [] },
          { base: 0, mutations: [{ kind: 'request-line', line: ' GET /health HTTP/1.1' }] },
        ],
        delivery: 'whole',
        pieceSize: 1,
        delayMs: 0,
        endAfterWrite: false,
      }),
  );
  it.each(['rest', 'parent', 'gateway'] as const)(
    'answers a request that stops parsing while it is still being dribbled in on the %s listener (the refusal is not reset away)',
    (listener) =>
      runFuzzCase(door, suite.system, {
        listener,
        requests: [{ base: 0, mutations: [{ kind: 'huge-header', size: 20_000 }] }],
        delivery: 'dribble',
        pieceSize: 14,
        delayMs: 0,
        endAfterWrite: false,
      }),
  );
  it.each(['rest', 'parent', 'gateway'] as const)(
    'answers a Host that is no host on the %s listener with a 400 in its format (not a 500)',
    (listener) =>
      runFuzzCase(
        door,
        suite.system,
        oneRequest(listener, [{ kind: 'drop-host' }, { kind: 'header', name: 'Host', value: '! localhost' }]),
      ),
  );
  it.each(['rest', 'parent', 'gateway'] as const)(
    'answers a request whose client half-closes once it is sent, on the %s listener (its reply is still owed)',
    (listener) =>
      runFuzzCase(door, suite.system, { ...oneRequest(listener, []), requests: [{ base: 1, mutations: [] }], endAfterWrite: true }),
  );
  it('answers an unknown Expect on an Area A path with 417 and google.rpc.Status', () =>
    runFuzzCase(door, suite.system, {
      ...oneRequest('rest', [{ kind: 'header', name: 'Expect', value: 'multipart/form-data' }]),
      requests: [{ base: 1, mutations: [{ kind: 'header', name: 'Expect', value: 'multipart/form-data' }] }],
    }));
});
