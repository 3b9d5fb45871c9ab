/**
 * Puts result-shaping.ts's computeResponse in place of @apollo/gateway's own, for every ApolloGateway of the process.
 *
 * @apollo/gateway calls its result shaping through the CommonJS exports of dist/resultShaping.js at every request
 * (`(0, resultShaping_1.computeResponse)(…)` in executeQueryPlan.js), and offers no option to supply another. Replacing
 * that export is the one seam there is. It is done only over the release our version mirrors line for line (the
 * dependency is pinned to it); with any other release Apollo's own stays, and the caller is told why, so an upgrade can
 * never run a shaping that has drifted from the executor around it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { computeResponse, type ComputeResponseArgs, type ComputedResponse } from './result-shaping.ts';

/** The @apollo/gateway release whose dist/resultShaping.js result-shaping.ts mirrors. */
export const MIRRORED_GATEWAY_VERSION = '2.14.4';

type ComputeResponse = (args: ComputeResponseArgs) => ComputedResponse;

/** Apollo's own function, kept on ours: found again even by a second copy of this module (tests re-evaluate modules). */
const APOLLO_ORIGINAL = Symbol.for('tributary.gateway.apolloComputeResponse');

interface ResultShapingModule {
  computeResponse: ComputeResponse & { [APOLLO_ORIGINAL]?: ComputeResponse };
}

function loadApolloResultShaping(): { version: string; module: ResultShapingModule } {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@apollo/gateway');
  const root = dirname(dirname(main));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return { version, module: require(join(dirname(main), 'resultShaping.js')) as ResultShapingModule };
}

export type ResultShapingInstall = { installed: true } | { installed: false; reason: string };

export function installResultShaping(): ResultShapingInstall {
  const { version, module } = loadApolloResultShaping();
  if (version !== MIRRORED_GATEWAY_VERSION) {
    return { installed: false, reason: `@apollo/gateway is ${version}, the compiled result shaping mirrors ${MIRRORED_GATEWAY_VERSION}` };
  }
  if (typeof module.computeResponse !== 'function') {
    return { installed: false, reason: '@apollo/gateway/dist/resultShaping.js exports no computeResponse' };
  }
  const original = module.computeResponse[APOLLO_ORIGINAL] ?? module.computeResponse;
  module.computeResponse = Object.assign((args: ComputeResponseArgs) => computeResponse(args), { [APOLLO_ORIGINAL]: original });
  return { installed: true };
}

/** @apollo/gateway's own computeResponse, installed over or not (what the tests compare against). */
export function apolloComputeResponse(): ComputeResponse {
  const { module } = loadApolloResultShaping();
  return module.computeResponse[APOLLO_ORIGINAL] ?? module.computeResponse;
}
