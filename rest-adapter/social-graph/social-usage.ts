import { isRecord } from '../../lib/is-record.ts';

/**
 * The Graph's usage headers from the usage the social services report with each call (`extensions.socialUsage`, made by
 * subgraphs/shared/social-graph/social-rate-limits.ts): `X-App-Usage` always, `X-Business-Use-Case-Usage` when the call
 * named an object. Nothing is counted here; a reply without a report (a call refused before it reached the services)
 * carries no usage headers.
 */

interface Usage {
  call_count: number;
  total_cputime: number;
  total_time: number;
}

function isUsage(value: unknown): value is Usage {
  return isRecord(value) && typeof value.call_count === 'number';
}

/**
 * The headers of a reported usage, `{app: Usage, business?: {objectId, usage}}` (the business usage also carries
 * estimated_time_to_regain_access); none when nothing, or something else, was reported.
 */
export function usageHeaders(reported: unknown): Record<string, string> {
  if (!isRecord(reported) || !isUsage(reported.app)) return {};
  const headers: Record<string, string> = { 'X-App-Usage': JSON.stringify(reported.app) };
  const business = reported.business;
  if (isRecord(business) && typeof business.objectId === 'string' && isUsage(business.usage)) {
    headers['X-Business-Use-Case-Usage'] = JSON.stringify({ [business.objectId]: [{ type: 'social', ...business.usage }] });
  }
  return headers;
}
