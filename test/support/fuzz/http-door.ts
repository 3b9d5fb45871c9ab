import { Agent } from 'node:http';
import { excerpt, type Judgement, type Problem, type ReplyView } from './error-formats.ts';
import type { CaseOutcome, FuzzDoor } from './fuzz-property.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { httpExchange, type HttpOutcome } from './http-exchange.ts';
import { describeHttpRequest } from './request-description.ts';

/**
 * A door reached with HTTP/1.1 requests (REST Area A, the Graph hosts, the upload, the GraphQL gateway). Generated
 * requests are plans resolved against the running system (its ports, tokens and ids change when it is restarted), sent
 * on one kept-alive connection, and judged by the area's oracle; the known-good probes then go on that same connection
 * and on a fresh one.
 */

export interface HttpRequestSpec {
  method: string;
  /** Absolute URL, path and query percent-encoded as they are to be sent. */
  url: string;
  headers: Record<string, string | string[]>;
  body?: Buffer | string | undefined;
}

/** A generated request, resolved once the system's addresses, tokens and ids are known. */
export interface HttpPlan {
  build(info: SystemInfo): HttpRequestSpec;
}

export interface HttpProbe {
  name: string;
  request(info: SystemInfo): HttpRequestSpec;
  /** What is wrong with the reply, or undefined when it is the right one. */
  check(reply: ReplyView): string | undefined;
}

export interface HttpDoorOptions {
  name: string;
  judge(reply: ReplyView, request: HttpRequestSpec): Judgement;
  probes: HttpProbe[];
  probeWrites?: boolean;
  bookkeepingTables?: Readonly<Record<string, string>>;
}

export function outcomeSummary(outcome: HttpOutcome): string {
  switch (outcome.kind) {
    case 'reply':
      return `HTTP ${outcome.status} after ${outcome.durationMs} ms, ${outcome.headers['content-type'] ?? 'no content type'}: ${
        outcome.text === '' ? '(empty body)' : excerpt(outcome.text)
      }`;
    case 'hang':
      return `no reply within ${outcome.durationMs} ms${outcome.partial ? ` (had: ${outcome.partial})` : ''}`;
    case 'dropped':
      return `connection dropped after ${outcome.durationMs} ms: ${outcome.error}${outcome.partial ? ` (had: ${outcome.partial})` : ''}`;
  }
}

/** A reply's class for the run's statistics: status and the error's code (a problem's type) and first words. */
export function replyLabel(reply: ReplyView): string {
  const body = reply.json as Record<string, any> | undefined;
  const error =
    typeof body?.type === 'string' && typeof body.title === 'string'
      ? `${body.type.replace(/^.*\//, '')}: ${String(body.errors?.[0]?.message ?? body.errors?.[0]?.detail ?? body.detail)}`
      : body?.error?.code !== undefined
        ? `code ${body.error.code}${body.error.error_subcode ? `/${body.error.error_subcode}` : ''}: ${String(body.error.error_user_msg ?? body.error.message)}`
        : body?.errors?.[0] !== undefined
          ? `${body.errors[0].extensions?.code ?? body.errors[0].code}: ${String(body.errors[0].message)}`
          : typeof body?.code === 'number'
            ? `code ${body.code}: ${String(body.message)}`
            : '';
  return `${reply.status} ${error
    .replace(/\d{6,}/g, 'N')
    .replace(/"[^"]{20,}"/g, '"…"')
    .slice(0, 90)}`;
}

/** Problems of a transport outcome that is not a reply: a hang or a dropped connection where a reply was due. */
export function transportProblems(outcome: HttpOutcome, timeoutMs: number): Problem[] {
  if (outcome.kind === 'hang') return [{ kind: 'hang', detail: `no reply within the ${timeoutMs} ms bound` }];
  if (outcome.kind === 'dropped') return [{ kind: 'dropped', detail: `the connection ended without a reply: ${outcome.error}` }];
  return [];
}

export class HttpDoor implements FuzzDoor<HttpPlan> {
  readonly name: string;
  readonly probeWrites: boolean;
  readonly bookkeepingTables: Readonly<Record<string, string>>;
  /** One connection, kept alive across a case's request and its probes. */
  private agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly options: HttpDoorOptions) {
    this.name = options.name;
    this.probeWrites = options.probeWrites ?? false;
    this.bookkeepingTables = options.bookkeepingTables ?? {};
  }

  async exchange(plan: HttpPlan, system: { info: SystemInfo }): Promise<CaseOutcome> {
    const { requestTimeoutMs } = fuzzSettings();
    const request = plan.build(system.info);
    const outcome = await httpExchange({ ...request, agent: this.agent, timeoutMs: requestTimeoutMs });
    if (outcome.kind !== 'reply') {
      // Whatever is left of that connection is not to be reused.
      this.resetAgent();
      return {
        problems: transportProblems(outcome, requestTimeoutMs),
        rejected: true,
        unavailable: false,
        summary: outcomeSummary(outcome),
      };
    }
    const judgement = this.options.judge(outcome, request);
    return { ...judgement, summary: outcomeSummary(outcome), label: replyLabel(outcome) };
  }

  async probe(system: { info: SystemInfo }): Promise<Problem[]> {
    const { requestTimeoutMs } = fuzzSettings();
    const problems: Problem[] = [];
    for (const probe of this.options.probes) {
      for (const connection of ['kept-alive', 'fresh'] as const) {
        const request = probe.request(system.info);
        const outcome = await httpExchange({
          ...request,
          timeoutMs: requestTimeoutMs,
          ...(connection === 'kept-alive' ? { agent: this.agent } : {}),
        });
        const wrong = outcome.kind === 'reply' ? probe.check(outcome) : outcomeSummary(outcome);
        if (wrong !== undefined) {
          problems.push({ kind: 'liveness', detail: `the known-good ${probe.name} on a ${connection} connection: ${wrong}` });
          if (connection === 'kept-alive') this.resetAgent();
        }
      }
    }
    return problems;
  }

  describe(plan: HttpPlan, info: SystemInfo): string {
    const request = plan.build(info);
    return describeHttpRequest(request.method, request.url, request.headers, request.body);
  }

  private resetAgent(): void {
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
  }

  close(): void {
    this.agent.destroy();
  }
}
