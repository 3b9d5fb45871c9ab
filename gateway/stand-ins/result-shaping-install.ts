/**
 * Stand-in `result-shaping` (lib/stand-ins/stand-in-registry.ts): puts result-shaping.ts's computeResponse in place of
 * @apollo/gateway's own, for every ApolloGateway of the process.
 *
 * @apollo/gateway calls its result shaping through the CommonJS exports of dist/resultShaping.js at every request
 * (`(0, resultShaping_1.computeResponse)(…)` in executeQueryPlan.js), and offers no option to supply another. Replacing
 * that export is the one seam there is. The gate lets it in only over the release our version mirrors line for line;
 * with any other release, or with the file gone, Apollo's own stays and a warning says why, so an upgrade can never run
 * a shaping that has drifted from the executor around it.
 */
import { STAND_INS } from '../../lib/stand-ins/stand-in-registry.ts';
import { apolloOriginalExport, setApolloExport, type ApolloExport } from './apollo-export-patch.ts';
import { computeResponse, type ComputeResponseArgs, type ComputedResponse } from './result-shaping.ts';

type ComputeResponse = (args: ComputeResponseArgs) => ComputedResponse;

const COMPUTE_RESPONSE: ApolloExport = {
  file: STAND_INS['result-shaping'].loads[0]!,
  exportName: 'computeResponse',
  original: Symbol.for('tributary.gateway.apolloComputeResponse'),
};

/** Puts the compiled shaping in place (`on`) or Apollo's own back; the stand-in's gate has passed when `on`. */
export function setResultShaping(on: boolean): void {
  setApolloExport<ComputeResponse>(COMPUTE_RESPONSE, on, () => (args: ComputeResponseArgs) => computeResponse(args));
}

/** @apollo/gateway's own computeResponse, installed over or not (what the tests compare against). */
export function apolloComputeResponse(): ComputeResponse {
  return apolloOriginalExport<ComputeResponse>(COMPUTE_RESPONSE);
}
