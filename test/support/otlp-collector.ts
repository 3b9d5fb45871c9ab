import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP (JSON) exporter sent it, with what the tests read of it. */
export interface CollectedSpan {
  /** service.name of the exporting process. */
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** String-valued attributes (e.g. db.query.text). */
  attributes: Record<string, string>;
  links: { traceId: string; spanId: string }[];
}

export interface OtlpCollector {
  /** The traces endpoint, for OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. */
  url: string;
  /** Every span received so far, in arrival order. */
  spans: CollectedSpan[];
  close(): Promise<void>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string };
}

interface OtlpBody {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: {
      spans: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function stringAttributes(attributes: readonly OtlpAttribute[] | undefined): Record<string, string> {
  const strings: Record<string, string> = {};
  for (const { key, value } of attributes ?? []) if (value.stringValue !== undefined) strings[key] = value.stringValue;
  return strings;
}

/** A minimal OTLP/HTTP (JSON) traces receiver on an ephemeral port. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody;
        for (const resource of body.resourceSpans) {
          const service = stringAttributes(resource.resource.attributes)['service.name'] ?? '';
          for (const scope of resource.scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: stringAttributes(span.attributes),
                links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
