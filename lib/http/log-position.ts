/**
 * The change log's position a write's reply carries and a read may present (issue 39; gateway/fetch-cache/): a read
 * presenting one is never served from a cache older than it. Decimal, at most 2^63 − 1. One name for every door: the
 * gateway's (GraphQL), the REST adapter's (both areas' paths, in process or over HTTP), gRPC's (a trailer), and CORS.
 */
export const LOG_POSITION_HEADER = 'tributary-log-position';
