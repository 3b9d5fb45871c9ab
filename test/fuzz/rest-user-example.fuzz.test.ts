import { describe, it } from 'vitest';
import { checkDoor } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';
import {
  createRequests,
  createRestUserExampleDoor,
  listRequests,
  pathRequests,
  updateRequests,
} from '../support/fuzz/rest-user-example-door.ts';

/**
 * Fuzz of Area A's REST door: every reply to a hostile request is a google.rpc.Status with its code's HTTP status (no 5xx),
 * within the bound, the List probe still answers on the same and on a fresh connection, and a refused request stores
 * nothing.
 */

const door = createRestUserExampleDoor();
const suite = useFuzzSystem('rest-user-example', 4, {}, () => door.close());

describe('REST Area A under hostile requests', () => {
  it(
    'answers hostile create bodies',
    () => checkDoor('create bodies', door, suite.system, createRequests, suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile update bodies and ids',
    () => checkDoor('update bodies', door, suite.system, updateRequests, suite.tally),
    propertyTestTimeoutMs(),
  );
  it('answers hostile List params', () => checkDoor('list params', door, suite.system, listRequests, suite.tally), propertyTestTimeoutMs());
  it(
    'answers any method on any Area A path',
    () => checkDoor('methods and paths', door, suite.system, pathRequests, suite.tally),
    propertyTestTimeoutMs(),
  );
});
