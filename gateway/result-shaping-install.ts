/**
 * Puts result-shaping.ts's computeResponse in place of @apollo/gateway's own, for every ApolloGateway of the process.
 *
 * @apollo/gateway calls its result shaping through the CommonJS exports of dist/resultShaping.js at every request
 * (`(0, resultShaping_1.computeResponse)(…)` in executeQueryPlan.js), and offers no option to supply another. Replacing
 * that export is the one seam there is. It is done only over the release our version mirrors line for line (the
 * dependency is pinned to it); with any other release Apollo's own stays, and the caller is told why, so an upgrade can
 * never run a shaping that has drifted from the executor around it.
 */
import { apolloOriginalExport, installOverApolloExport, type ApolloExport, type ExportPatchInstall } from './apollo-export-patch.ts';
import { computeResponse, type ComputeResponseArgs, type ComputedResponse } from './result-shaping.ts';

/** The @apollo/gateway release whose dist/resultShaping.js result-shaping.ts mirrors. */
export const MIRRORED_GATEWAY_VERSION = '2.14.4';

type ComputeResponse = (args: ComputeResponseArgs) => ComputedResponse;

const COMPUTE_RESPONSE: ApolloExport = {
  packageName: '@apollo/gateway',
  file: 'resultShaping.js',
  exportName: 'computeResponse',
  checkedVersion: MIRRORED_GATEWAY_VERSION,
  checkedBy: 'the compiled result shaping mirrors',
  original: Symbol.for('tributary.gateway.apolloComputeResponse'),
};

export type ResultShapingInstall = ExportPatchInstall;

export function installResultShaping(): ResultShapingInstall {
  return installOverApolloExport<ComputeResponse>(COMPUTE_RESPONSE, () => (args: ComputeResponseArgs) => computeResponse(args));
}

/** @apollo/gateway's own computeResponse, installed over or not (what the tests compare against). */
export function apolloComputeResponse(): ComputeResponse {
  return apolloOriginalExport<ComputeResponse>(COMPUTE_RESPONSE);
}
