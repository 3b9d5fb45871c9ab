import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import Negotiator from 'negotiator';
import type { LiveOutcome } from './live-execution.ts';
import { isAsyncIterable } from '../../lib/graphql/map-async-iterator.ts';
import type { DeferredPart } from './defer-execution.ts';

/**
 * Subscriptions over HTTP, the two protocols front-ends use besides WebSocket:
 *
 * - Apollo's multipart HTTP subscriptions (`Accept: multipart/mixed;subscriptionSpec=1.0`, what Apollo Client's
 *   HttpLink and Apollo Sandbox send): a `multipart/mixed; boundary="graphql"; subscriptionSpec="1.0"` reply whose parts
 *   are `{"payload": <result>}`, a heartbeat part `{}` every `heartbeatMs` (Apollo Router sends one every 5 s), and the
 *   closing delimiter when the subscription ends. An error that ends the stream for the transport's reasons goes as
 *   `{"payload": null, "errors": [...]}`.
 * - GraphQL over Server-Sent Events, graphql-sse's "distinct connections" mode (graphql-sse 2.6.1's handler, its client
 *   unmodified): `text/event-stream`, a comment line at once and every 12 s, `event: next` per result, `event:
 *   complete` at the end. Each result that carries a cursor at its root field also carries it as the event's `id`, so an
 *   EventSource that reconnects sends it back as `Last-Event-ID` (read as `after`: gateway-door.ts).
 */

export type LiveTransport = 'multipart' | 'sse';

/** Whether an Accept header takes @defer's incremental delivery (Apollo Client 4: multipart/mixed;deferSpec=20220824). */
export function acceptsDefer(accept: string | undefined): boolean {
  return accept !== undefined && /multipart\/mixed[^,]*deferspec\s*=\s*"?20220824"?/i.test(accept);
}

const DEFER_TYPE = 'multipart/mixed; boundary="-"; deferSpec=20220824';
const deferPart = (json: string) => `\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}\r\n---`;

/** A query's @defer parts as `multipart/mixed;deferSpec=20220824`, each part followed at once by the delimiter. */
export function deferHttpReply(parts: AsyncIterableIterator<DeferredPart>): LiveReply {
  let started = false;
  let finished = false;
  const chunks: AsyncIterableIterator<string> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return { value: undefined, done: true };
      if (!started) {
        started = true;
        return { value: '\r\n---', done: false };
      }
      try {
        const step = await parts.next();
        if (step.done) {
          finished = true;
          return { value: '--\r\n', done: false };
        }
        if (!step.value.hasNext) finished = true;
        return { value: deferPart(JSON.stringify(step.value)) + (step.value.hasNext ? '' : '--\r\n'), done: false };
      } catch (error) {
        finished = true;
        const message = error instanceof Error ? error.message : String(error);
        return {
          value:
            deferPart(JSON.stringify({ hasNext: false, errors: [{ message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] })) + '--\r\n',
          done: false,
        };
      }
    },
    async return() {
      finished = true;
      await parts.return?.(undefined);
      return { value: undefined, done: true };
    },
  };
  return {
    status: 200,
    headers: [
      ['content-type', DEFER_TYPE],
      ['cache-control', 'no-store'],
    ],
    chunks,
  };
}

/** Whether an Accept header also takes a plain JSON reply (application/json, application/graphql-response+json, a wildcard). */
export function acceptsJson(accept: string | undefined): boolean {
  return accept === undefined || new Negotiator({ headers: { accept } }).mediaType(JSON_TYPES) !== undefined;
}
const JSON_TYPES = ['application/json', 'application/graphql-response+json'];

/**
 * A whole result's JSON as the one part of a `deferSpec=20220824` reply — `{…result, "hasNext": false}` — for a client
 * that takes only multipart: the reply's headers and its complete body. The result's own text is kept (closed with
 * hasNext), so none of its numbers passes through a JavaScript number.
 */
export function singleDeferPart(resultJson: string): { headers: [string, string][]; body: string } {
  const json = resultJson.trimEnd();
  const part = json === '{}' ? '{"hasNext":false}' : `${json.slice(0, -1)},"hasNext":false}`;
  return {
    headers: [
      ['content-type', DEFER_TYPE],
      ['cache-control', 'no-store'],
    ],
    body: `\r\n---${deferPart(part)}--\r\n`,
  };
}

/** Which HTTP subscription protocol an Accept header asks for (none: the request is not one of them). */
export function liveTransportOf(accept: string | undefined): LiveTransport | undefined {
  if (!accept) return undefined;
  const lower = accept.toLowerCase();
  if (/multipart\/mixed[^,]*subscriptionspec\s*=\s*"?1\.0"?/.test(lower)) return 'multipart';
  if (lower.includes('text/event-stream')) return 'sse';
  return undefined;
}

export interface LiveReply {
  status: number;
  headers: [string, string][];
  chunks: AsyncIterableIterator<string>;
}

const MULTIPART_TYPE = 'multipart/mixed; boundary="graphql"; subscriptionSpec="1.0"';
/**
 * Every part is followed at once by the delimiter, so a reader knows it is whole without waiting for the next one (as
 * Apollo Router writes them); the end turns the last delimiter into the closing one.
 */
const MULTIPART_START = '\r\n--graphql';
const part = (json: string) => `\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}\r\n--graphql`;
const MULTIPART_END = '--\r\n';

export function liveHttpReply(
  transport: LiveTransport,
  outcome: LiveOutcome,
  options: { heartbeatMs: number; rootKey: string | undefined },
): LiveReply {
  const results: AsyncIterator<FormattedExecutionResult> = isAsyncIterable(outcome) ? outcome : once(outcome);
  if (transport === 'multipart') {
    return {
      status: 200,
      headers: [
        ['content-type', MULTIPART_TYPE],
        ['cache-control', 'no-store'],
      ],
      chunks: framed(results, {
        heartbeatMs: options.heartbeatMs,
        first: MULTIPART_START,
        heartbeat: part('{}'),
        frame: (result) => part(JSON.stringify({ payload: result })),
        failure: (errors) => part(JSON.stringify({ payload: null, errors })),
        end: MULTIPART_END,
      }),
    };
  }
  return {
    status: 200,
    headers: [
      ['content-type', 'text/event-stream; charset=utf-8'],
      ['cache-control', 'no-cache'],
      ['connection', 'keep-alive'],
      ['content-encoding', 'none'],
    ],
    chunks: framed(results, {
      heartbeatMs: 12_000,
      first: ':\n\n',
      heartbeat: ':\n\n',
      frame: (result) => {
        const cursor = cursorOf(result, options.rootKey);
        return `event: next\n${cursor !== undefined ? `id: ${cursor}\n` : ''}data: ${JSON.stringify(result)}\n\n`;
      },
      failure: (errors) => `event: next\ndata: ${JSON.stringify({ errors })}\n\n`,
      end: 'event: complete\ndata:\n\n',
    }),
  };
}

interface Framing {
  heartbeatMs: number;
  first: string | undefined;
  heartbeat: string;
  frame(result: FormattedExecutionResult): string;
  failure(errors: GraphQLFormattedError[]): string;
  end: string;
}

/**
 * The results as protocol text, with heartbeats while no result comes: a result's `next()` stays pending across
 * heartbeats (never called twice at once), and `return()` ends the results at once. The pending result is watched by one
 * handler, not raced against each heartbeat: a race per heartbeat left a reaction on it every 5 s for as long as no
 * event came (hours, on a quiet object).
 */
function framed(results: AsyncIterator<FormattedExecutionResult>, framing: Framing): AsyncIterableIterator<string> {
  let inFlight = false;
  let outcome: { step: IteratorResult<FormattedExecutionResult> } | { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  let started = false;
  let finished = false;
  const ask = () => {
    inFlight = true;
    results
      .next()
      .then(
        (step) => (outcome = { step }),
        (error: unknown) => (outcome = { error }),
      )
      .finally(() => {
        inFlight = false;
        wake?.();
      });
  };
  const finish = async (): Promise<IteratorResult<string>> => {
    if (!finished) {
      finished = true;
      wake?.();
      await results.return?.();
    }
    return { value: undefined, done: true };
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (finished) return { value: undefined, done: true };
      if (!started) {
        started = true;
        if (framing.first !== undefined) return { value: framing.first, done: false };
      }
      if (!outcome && !inFlight) ask();
      if (!outcome) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, framing.heartbeatMs);
        });
        wake = undefined;
        clearTimeout(timer);
        if (finished) return { value: undefined, done: true };
        if (!outcome) return { value: framing.heartbeat, done: false };
      }
      const settled = outcome;
      outcome = undefined;
      if ('error' in settled) {
        finished = true;
        const message = settled.error instanceof Error ? settled.error.message : String(settled.error);
        return { value: framing.failure([{ message, extensions: { code: 'INTERNAL_SERVER_ERROR' } }]) + framing.end, done: false };
      }
      if (settled.step.done) {
        finished = true;
        return { value: framing.end, done: false };
      }
      return { value: framing.frame(settled.step.value), done: false };
    },
    return: finish,
  };
}

/** The cursor of a result's root field (`data.<root>.cursor`), when it has one. */
function cursorOf(result: FormattedExecutionResult, rootKey: string | undefined): string | undefined {
  if (rootKey === undefined) return undefined;
  const root = (result.data as Record<string, unknown> | null | undefined)?.[rootKey];
  const cursor = (root as { cursor?: unknown } | null | undefined)?.cursor;
  return typeof cursor === 'string' && /^[0-9]{1,20}$/.test(cursor) ? cursor : undefined;
}

function once(result: FormattedExecutionResult): AsyncIterator<FormattedExecutionResult> {
  let given = false;
  return {
    next: async () => {
      if (given) return { value: undefined, done: true };
      given = true;
      return { value: result, done: false };
    },
  };
}
