import { afterAll, beforeAll, describe } from 'vitest';
import { MATRIX_NOW } from '../../support/auth-matrix/matrix.ts';
import { createUserMatrix, defineUserCells, type UserMatrix } from '../../support/auth-matrix/user-records.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Auth matrix of Area A (user records), embedded gateway: every operation on REST, GraphQL and gRPC × every credential
 * condition → the area's error (google.rpc.Status with WWW-Authenticate, extensions.code, gRPC status), nothing of the
 * record in a refusal, and nothing changed by it. The table is in test/support/auth-matrix/user-records.ts.
 */
describe('auth matrix: user records (Area A), embedded gateway', () => {
  let system: TestSystem | undefined;
  let matrix: UserMatrix | undefined;
  beforeAll(async () => {
    // The cache-off run the cached matrices (*.cached.test.ts) are held to.
    system = await startTestSystem({ GATEWAY_CACHE: 'off' }, { now: () => MATRIX_NOW });
    matrix = await createUserMatrix(system);
  });
  afterAll(async () => {
    matrix?.close();
    await system?.close();
  });

  defineUserCells(() => matrix!);
});
