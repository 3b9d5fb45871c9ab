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

interface ReportedUsage {
  app: Usage;
  business?: { objectId: string; usage: Usage & { estimated_time_to_regain_access: number } };
}

function isUsage(value: unknown): value is Usage {
  const usage = value as Partial<Usage> | null;
  return typeof usage === 'object' && usage !== null && typeof usage.call_count === 'number';
}

export function usageHeaders(reported: unknown): Record<string, string> {
  const usage = reported as Partial<ReportedUsage> | null | undefined;
  if (!usage || !isUsage(usage.app)) return {};
  const headers: Record<string, string> = { 'X-App-Usage': JSON.stringify(usage.app) };
  const business = usage.business;
  if (business && typeof business.objectId === 'string' && isUsage(business.usage)) {
    headers['X-Business-Use-Case-Usage'] = JSON.stringify({ [business.objectId]: [{ type: 'social', ...business.usage }] });
  }
  return headers;
}
