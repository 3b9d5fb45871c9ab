import fc from 'fast-check';
import WebSocket from 'ws';
import type { CaseOutcome, FuzzDoor } from './fuzz-property.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import type { Problem } from './error-formats.ts';
import { excerpt } from './error-formats.ts';
import { hostileString, rawJsonValue, type RawJson } from './hostile-values.ts';
import { fuzzSettings } from './fuzz-settings.ts';
import { eventually } from '../eventually.ts';

/**
 * The gateway's live doors (issue 27): graphql-transport-ws on /graphql, and subscriptions POSTed for Apollo's multipart
 * protocol and for SSE. Generated here: protocol messages in and out of order (subscribe before init, two inits, a
 * duplicate id, unknown types, JSON that is no message, binary frames, a frame past the size bound), subscription
 * documents good and bad with hostile variables, floods of subscribes past the per-connection bound, clients that never
 * send connection_init (half-open), that never read, that go away mid-stream. Judged: the process lives and answers;
 * a WebSocket is closed only with the protocol's codes (never 1011, the server's own failure); every message the server
 * sends is a protocol message whose errors carry a message and extensions.code, never INTERNAL_SERVER_ERROR; an HTTP
 * reply is never 5xx and is the stream the Accept asked for or a GraphQL error reply; nothing is stored (subscriptions
 * read only). The gateway's memory is checked after each property by the door file.
 *
 * Since issue 41 also: the token spelled every way a client may (`bearer`, `BEARER`, tabs, doubled or trailing spaces,
 * `OAuth`), on the HTTP doors and in connection_init, and connections that each spell it differently and subscribe past
 * the per-token cap (judged: never more open than the cap); bodies whose variables the operation never uses nest deep
 * (within the bound and past it, judged: past it a 400 in GraphQL's shape); deferred fragments the planner keeps in one
 * subgraph (judged: their fields arrive).
 */

/** Fuzz-system settings that keep cases short: connection_init waited for 0.3 s, small bounds soon reached. */
export const LIVE_SYSTEM_ENV = {
  SUBSCRIPTION_INIT_TIMEOUT_MS: '300',
  SUBSCRIPTIONS_PER_CONNECTION: '5',
  SUBSCRIPTIONS_PER_TOKEN: '6',
  SUBSCRIPTION_MAX_MESSAGE_BYTES: '16384',
} as const;
const PER_TOKEN = Number(LIVE_SYSTEM_ENV.SUBSCRIPTIONS_PER_TOKEN);

/** How a client may write its token's header: every one is the same credential. */
type Spelling = 'Bearer' | 'bearer' | 'BEARER' | 'double space' | 'tab' | 'trailing space' | 'OAuth';
const spelling = fc.constantFrom<Spelling>('Bearer', 'Bearer', 'bearer', 'BEARER', 'double space', 'tab', 'trailing space', 'OAuth');
function spelled(token: string, how: Spelling): string {
  return {
    Bearer: `Bearer ${token}`,
    bearer: `bearer ${token}`,
    BEARER: `BEARER ${token}`,
    'double space': `Bearer  ${token}`,
    tab: `Bearer\t${token}`,
    'trailing space': `Bearer ${token} `,
    OAuth: `OAuth ${token}`,
  }[how];
}

/** Close codes a graphql-ws server may use (graphql-ws's CloseCode), plus ws's own for a frame too large and going away. */
const ALLOWED_CLOSE_CODES = new Set([1000, 1001, 1005, 1006, 1009, 1013, 4400, 4401, 4403, 4406, 4408, 4409, 4429]);

type Credential = 'own' | 'parent' | 'none' | 'junk' | 'expired';

/** A subscription (or not) the door sends: a template filled with the system's ids and a hostile value here and there. */
interface LiveDocument {
  template:
    'media' | 'replies' | 'mentions' | 'query' | 'invalid' | 'garbage' | 'two-roots' | 'deferred' | 'deferred-broken' | 'deferred-same';
  id: 'post' | 'comment' | 'account' | 'unknown' | 'hostile';
  after: 'none' | 'zero' | 'big' | 'hostile' | 'negative';
  hostile: string;
}

type WsStep =
  | { kind: 'init'; credential: Credential; shape: 'Authorization' | 'headers' | 'array' | 'string'; spelling: Spelling }
  | { kind: 'spellings'; spellings: Spelling[]; each: number }
  | { kind: 'subscribe'; id: string; document: LiveDocument; variablesJson: boolean }
  | { kind: 'complete'; id: string }
  | { kind: 'ping' | 'pong' }
  | { kind: 'raw'; text: string }
  | { kind: 'binary'; bytes: number }
  | { kind: 'oversized' }
  | { kind: 'flood'; count: number; document: LiveDocument };

export type LiveInput =
  | { door: 'ws'; protocol: 'graphql-transport-ws' | 'graphql-ws' | 'none'; steps: WsStep[]; read: boolean; holdMs: number }
  | {
      door: 'http';
      accept: 'sse' | 'multipart' | 'json' | 'both' | 'defer';
      document: LiveDocument;
      credential: Credential;
      spelling: Spelling;
      readMs: number;
      bodyShape: 'json' | 'raw' | 'nested';
      rawVariables: RawJson;
      /** For `nested`: how deep the unused variable's arrays go (past GRAPHQL_MAX_JSON_DEPTH, 32, some of the time). */
      nesting: number;
    };

const credential = fc.constantFrom<Credential>('own', 'own', 'parent', 'none', 'junk', 'expired');
const liveDocument: fc.Arbitrary<LiveDocument> = fc.record({
  template: fc.constantFrom<LiveDocument['template']>(
    'media',
    'media',
    'replies',
    'mentions',
    'query',
    'invalid',
    'garbage',
    'two-roots',
    'deferred',
    'deferred',
    'deferred-broken',
    'deferred-same',
    'deferred-same',
  ),
  id: fc.constantFrom<LiveDocument['id']>('post', 'post', 'comment', 'account', 'unknown', 'hostile'),
  after: fc.constantFrom<LiveDocument['after']>('none', 'none', 'zero', 'big', 'hostile', 'negative'),
  hostile: hostileString({ maxLength: 200 }),
});
const subscriptionId = fc.oneof(fc.constantFrom('1', '2', '1'), hostileString({ maxLength: 64 }));

const wsStep: fc.Arbitrary<WsStep> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('init' as const),
      credential,
      shape: fc.constantFrom('Authorization', 'headers', 'array', 'string'),
      spelling,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('spellings' as const),
      spellings: fc.array(spelling, { minLength: 2, maxLength: 4 }),
      each: fc.integer({ min: 1, max: 5 }),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('subscribe' as const),
      id: subscriptionId,
      document: liveDocument,
      variablesJson: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), id: subscriptionId }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('ping' as const, 'pong' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      text: fc.oneof(
        hostileString(),
        fc.constantFrom(
          '{}',
          '[]',
          'null',
          '{"type":"subscribe"}',
          '{"type":"subscribe","id":"x","payload":null}',
          '{"type":"next","id":"1","payload":{}}',
          '{"type":"connection_init","payload":[]}',
          '{"type":42}',
          '{"id":"1"}',
        ),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('binary' as const), bytes: fc.integer({ min: 0, max: 64 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('oversized' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('flood' as const), count: fc.integer({ min: 2, max: 12 }), document: liveDocument }),
  },
);

export const wsCases: fc.Arbitrary<LiveInput> = fc.record({
  door: fc.constant('ws' as const),
  protocol: fc.constantFrom<'graphql-transport-ws' | 'graphql-ws' | 'none'>(
    'graphql-transport-ws',
    'graphql-transport-ws',
    'graphql-transport-ws',
    'graphql-ws',
    'none',
  ),
  steps: fc.array(wsStep, { minLength: 0, maxLength: 8 }),
  read: fc.boolean(),
  holdMs: fc.integer({ min: 0, max: 500 }),
});

export const httpCases: fc.Arbitrary<LiveInput> = fc.record({
  door: fc.constant('http' as const),
  accept: fc.constantFrom<'sse' | 'multipart' | 'json' | 'both' | 'defer'>('sse', 'multipart', 'json', 'both', 'defer', 'defer'),
  document: liveDocument,
  credential,
  spelling,
  readMs: fc.integer({ min: 0, max: 600 }),
  bodyShape: fc.constantFrom<'json' | 'raw' | 'nested'>('json', 'json', 'json', 'raw', 'nested'),
  rawVariables: rawJsonValue(),
  nesting: fc.oneof(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 31, max: 5000 })),
});

function tokenOf(which: Credential, info: SystemInfo): string | undefined {
  switch (which) {
    case 'own':
      return info.social.tokens.own;
    case 'parent':
      return info.social.tokens.parent;
    case 'expired':
      return info.social.tokens.expired;
    case 'junk':
      return 'junk.junk.junk';
    case 'none':
      return undefined;
  }
}

/** The document's text and variables for this system. */
function documentOf(document: LiveDocument, info: SystemInfo): { query: string; variables: Record<string, unknown> } {
  const id = {
    post: info.social.posts[0] ?? '1',
    comment: Object.values(info.social.comments)[0] ?? '1',
    account: info.social.accounts.bluebottle,
    unknown: '17800000000000999',
    hostile: document.hostile,
  }[document.id];
  const after = { none: undefined, zero: '0', big: '9223372036854775807', hostile: document.hostile, negative: '-1' }[document.after];
  const variables: Record<string, unknown> = { id, ...(after !== undefined ? { after } : {}) };
  switch (document.template) {
    case 'media':
      return {
        query:
          'subscription M($id: ID!, $after: String) { mediaCommentEvents(mediaId: $id, after: $after) { cursor action comment { text from { username } } media { caption } } }',
        variables,
      };
    case 'replies':
      return {
        query: 'subscription R($id: ID!, $after: String) { commentReplyEvents(commentId: $id, after: $after) { cursor action commentId } }',
        variables,
      };
    case 'mentions':
      return {
        query:
          'subscription A($id: ID!, $after: String) { accountMentionEvents(accountId: $id, after: $after) { cursor media { id caption } comment { text } } }',
        variables,
      };
    case 'query':
      return { query: 'query Q($id: ID!) { comment(id: $id) { id text } }', variables };
    case 'invalid':
      return { query: 'subscription { mediaCommentEvents(mediaId: 1) { nope } }', variables };
    case 'two-roots':
      return {
        query: 'subscription T($id: ID!) { a: mediaCommentEvents(mediaId: $id) { cursor } b: mediaCommentEvents(mediaId: $id) { cursor } }',
        variables,
      };
    case 'garbage':
      return { query: `subscription ${document.hostile}`, variables };
    case 'deferred':
      return {
        query:
          'query D($id: ID!) { me { id ... @defer(label: "m") { media(first: 2) { nodes { id ... @defer { commentsCount comments(first: 1) { nodes { text from { username } } } } } } } } comment(id: $id) { id ... @defer { text } } }',
        variables,
      };
    case 'deferred-broken':
      return { query: `query { me { ... @defer(label: ${JSON.stringify(document.hostile)}, if: $nope) { id } } }`, variables };
    case 'deferred-same':
      // Fields the planner fetches with the primary block, from the same subgraph: the deferred block has no fetch of its own.
      return {
        query:
          'query S($id: ID!) { comment(id: $id) { id ... @defer(label: "same") { text likeCount } } me { id ... @defer(label: "me") { username } } }',
        variables,
      };
  }
}

/** What must arrive of a deferred document whose fragments stay in one subgraph, once its parts are merged. */
function judgeSameSubgraphDefer(
  document: LiveDocument,
  parts: { data?: any; incremental?: { data?: any; path: (string | number)[] }[] }[],
  problems: Problem[],
): void {
  if (document.template !== 'deferred-same' || parts.length < 2) return;
  const merged = structuredClone(parts[0]!.data ?? {}) as Record<string, any>;
  for (const part of parts.slice(1)) {
    for (const item of part.incremental ?? []) {
      const target = item.path.reduce<any>((at, key) => at?.[key], merged);
      if (target && item.data) Object.assign(target, item.data);
    }
  }
  if (merged.comment && !('text' in merged.comment))
    problems.push({
      kind: 'format',
      detail: `a deferred fragment of one subgraph never arrived (comment.text): ${excerpt(JSON.stringify(parts), 400)}`,
    });
  if (merged.me && !('username' in merged.me))
    problems.push({
      kind: 'format',
      detail: `a deferred fragment of one subgraph never arrived (me.username): ${excerpt(JSON.stringify(parts), 400)}`,
    });
}

/** GRAPHQL_MAX_JSON_DEPTH's default (the fuzz systems keep it). */
const MAX_JSON_DEPTH = 32;

/**
 * Connections that each spell the same token another way and subscribe: however many they ask for, no more than the
 * per-token cap may be open at once (it was one count per spelling).
 */
async function spellingsPastTheCap(step: Extract<WsStep, { kind: 'spellings' }>, info: SystemInfo): Promise<Problem[]> {
  const url = info.gatewayUrl.replace(/^http/, 'ws');
  const query = 'subscription S($id: ID!) { mediaCommentEvents(mediaId: $id) { cursor } }';
  const sockets = step.spellings.map((how) => ({
    how,
    socket: new WebSocket(url, 'graphql-transport-ws'),
    refused: new Set<string>(),
    ponged: false,
  }));
  try {
    await Promise.all(
      sockets.map(
        (entry) =>
          new Promise<void>((resolve) => {
            // bound: a connection not acknowledged and ponged by then is left out of the count
            const timer = setTimeout(resolve, 3000);
            entry.socket.on('error', () => resolve());
            entry.socket.once('open', () =>
              entry.socket.send(
                JSON.stringify({ type: 'connection_init', payload: { Authorization: spelled(info.social.tokens.own, entry.how) } }),
              ),
            );
            entry.socket.on('message', (data) => {
              const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: { errors?: unknown } };
              if (message.type === 'connection_ack') {
                for (let index = 0; index < step.each; index += 1) {
                  entry.socket.send(
                    JSON.stringify({
                      type: 'subscribe',
                      id: `s${index}`,
                      payload: { query, variables: { id: info.social.posts[index % 3] } },
                    }),
                  );
                }
                entry.socket.send(JSON.stringify({ type: 'ping' }));
              } else if (message.type === 'error' || (message.type === 'next' && message.payload?.errors)) {
                entry.refused.add(message.id!);
              } else if (message.type === 'pong') {
                entry.ponged = true;
                clearTimeout(timer);
                resolve();
              }
            });
          }),
      ),
    );
    const openNow = () => sockets.filter((entry) => entry.ponged).reduce((sum, entry) => sum + step.each - entry.refused.size, 0);
    // A subscription past the cap is refused as it starts, which may be after the pong that answered the ping sent
    // behind it: the refusals (a presence) are waited for until the open ones are within the cap, bounded by the
    // request bound — a system that has not refused enough by then keeps more open than the cap allows.
    await eventually(() => openNow() <= PER_TOKEN, 'refusals past the per-token cap', {
      withinMs: fuzzSettings().requestTimeoutMs,
    }).catch(() => undefined);
    const open = openNow();
    return open > PER_TOKEN
      ? [
          {
            kind: 'format',
            detail: `${open} subscriptions of one token open at once, spelled ${step.spellings.join(', ')} (the cap is ${PER_TOKEN})`,
          },
        ]
      : [];
  } finally {
    for (const entry of sockets) entry.socket.terminate();
  }
}

function initPayload(step: Extract<WsStep, { kind: 'init' }>, info: SystemInfo): unknown {
  const token = tokenOf(step.credential, info);
  const authorization = token === undefined ? undefined : spelled(token, step.spelling);
  switch (step.shape) {
    case 'Authorization':
      return authorization === undefined ? {} : { Authorization: authorization };
    case 'headers':
      return { headers: { authorization } };
    case 'array':
      return [authorization];
    case 'string':
      return authorization ?? '';
  }
}

/** A server message: a JSON object with a known type, its errors in GraphQL's shape and none internal. */
function judgeServerMessage(text: string, problems: Problem[]): void {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    problems.push({ kind: 'format', detail: `a WebSocket message that is not JSON: ${excerpt(text, 300)}` });
    return;
  }
  const record = message as { type?: unknown; payload?: unknown };
  if (typeof record !== 'object' || record === null || typeof record.type !== 'string') {
    problems.push({ kind: 'format', detail: `a WebSocket message with no type: ${excerpt(text, 300)}` });
    return;
  }
  if (!['connection_ack', 'next', 'error', 'complete', 'ping', 'pong'].includes(record.type)) {
    problems.push({ kind: 'format', detail: `a message of type ${record.type}` });
    return;
  }
  const errors =
    record.type === 'error'
      ? record.payload
      : record.type === 'next'
        ? (record.payload as { errors?: unknown } | undefined)?.errors
        : undefined;
  if (record.type === 'error' && !Array.isArray(errors))
    problems.push({ kind: 'format', detail: `an error message whose payload is no list: ${excerpt(text, 300)}` });
  judgeErrors(errors, text, problems);
}

function judgeErrors(errors: unknown, text: string, problems: Problem[]): void {
  if (errors === undefined) return;
  if (!Array.isArray(errors)) {
    problems.push({ kind: 'format', detail: `errors that are no list: ${excerpt(text, 300)}` });
    return;
  }
  for (const error of errors as { message?: unknown; extensions?: { code?: unknown } }[]) {
    if (typeof error?.message !== 'string' || typeof error.extensions?.code !== 'string') {
      problems.push({ kind: 'format', detail: `an error without message or extensions.code: ${excerpt(text, 300)}` });
    } else if (error.extensions.code === 'INTERNAL_SERVER_ERROR') {
      problems.push({ kind: '5xx', detail: `an internal error: ${excerpt(text, 500)}` });
    }
  }
}

export class LiveDoor implements FuzzDoor<LiveInput> {
  readonly name = 'live';

  async exchange(input: LiveInput, system: FuzzSystem): Promise<CaseOutcome> {
    return input.door === 'ws' ? this.exchangeWs(input, system.info) : this.exchangeHttp(input, system.info);
  }

  private async exchangeWs(input: Extract<LiveInput, { door: 'ws' }>, info: SystemInfo): Promise<CaseOutcome> {
    const problems: Problem[] = [];
    const url = info.gatewayUrl.replace(/^http/, 'ws');
    const socket = input.protocol === 'none' ? new WebSocket(url) : new WebSocket(url, input.protocol);
    const received: string[] = [];
    let closed: { code: number; reason: string } | undefined;
    const opened = await new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('unexpected-response', (_request, response) => {
        if ((response.statusCode ?? 0) >= 500) problems.push({ kind: '5xx', detail: `upgrade answered ${response.statusCode}` });
        resolve(false);
      });
    });
    if (!opened) {
      socket.terminate();
      return { problems, rejected: true, unavailable: false, summary: 'the upgrade was refused', label: 'upgrade refused' };
    }
    socket.on('message', (data) => {
      if (input.read) received.push(String(data));
    });
    if (!input.read) socket.pause();
    const done = new Promise<void>((resolve) =>
      socket.once('close', (code, reason) => {
        closed = { code, reason: String(reason) };
        resolve();
      }),
    );
    socket.on('error', () => undefined);
    const send = (text: string | Buffer) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(text);
    };
    for (const step of input.steps) {
      switch (step.kind) {
        case 'init':
          send(JSON.stringify({ type: 'connection_init', payload: initPayload(step, info) }));
          break;
        case 'subscribe': {
          const { query, variables } = documentOf(step.document, info);
          send(JSON.stringify({ type: 'subscribe', id: step.id, payload: { query, ...(step.variablesJson ? { variables } : {}) } }));
          break;
        }
        case 'complete':
          send(JSON.stringify({ type: 'complete', id: step.id }));
          break;
        case 'ping':
        case 'pong':
          send(JSON.stringify({ type: step.kind }));
          break;
        case 'raw':
          send(step.text);
          break;
        case 'binary':
          send(Buffer.alloc(step.bytes, 7));
          break;
        case 'oversized':
          send(JSON.stringify({ type: 'ping', payload: { pad: 'x'.repeat(20_000) } }));
          break;
        case 'flood': {
          const { query, variables } = documentOf(step.document, info);
          for (let index = 0; index < step.count; index += 1) {
            send(JSON.stringify({ type: 'subscribe', id: `flood-${index}`, payload: { query, variables } }));
          }
          break;
        }
        case 'spellings':
          break;
      }
    }
    for (const step of input.steps) if (step.kind === 'spellings') problems.push(...(await spellingsPastTheCap(step, info)));
    // Hold the connection a while (a half-open one, never initialised, must be closed by the server within its bound).
    // pacing: the client holds the connection input.holdMs (the case's own), unless the server closes it first
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, input.holdMs))]);
    if (!closed) {
      socket.close(1000);
      // bound: a close handshake not finished by then ends with the socket terminated
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 1000))]);
      if (!closed) socket.terminate();
    }
    for (const text of received) judgeServerMessage(text, problems);
    if (closed && !ALLOWED_CLOSE_CODES.has(closed.code)) {
      problems.push({
        kind: closed.code === 1011 || closed.code === 4500 ? '5xx' : 'format',
        detail: `closed ${closed.code} ${closed.reason}`,
      });
    }
    const summary = `${received.length} message(s)${received.length ? `: ${excerpt(received.join(' | '), 400)}` : ''}; closed ${closed ? `${closed.code} ${closed.reason}` : 'by the client'}`;
    return { problems, rejected: true, unavailable: false, summary, label: closed ? `closed ${closed.code}` : 'closed by the client' };
  }

  private async exchangeHttp(input: Extract<LiveInput, { door: 'http' }>, info: SystemInfo): Promise<CaseOutcome> {
    const problems: Problem[] = [];
    const { query, variables } = documentOf(input.document, info);
    const accept = {
      sse: 'text/event-stream',
      multipart: 'multipart/mixed;subscriptionSpec=1.0, application/json',
      json: 'application/json',
      both: 'text/event-stream, multipart/mixed;subscriptionSpec="1.0"',
      defer: 'multipart/mixed;deferSpec=20220824, application/json;q=0.9',
    }[input.accept];
    const token = tokenOf(input.credential, info);
    const controller = new AbortController();
    const body =
      input.bodyShape === 'json'
        ? JSON.stringify({ query, variables })
        : input.bodyShape === 'nested'
          ? `{"query":${JSON.stringify(query)},"variables":${JSON.stringify(variables).slice(0, -1)}${Object.keys(variables).length > 0 ? ',' : ''}"unused":${'['.repeat(input.nesting)}${']'.repeat(input.nesting)}}}`
          : `{"query":${JSON.stringify(query)},"variables":${input.rawVariables}}`;
    // {"variables":{"unused":[…]}}: the body's object and the variables' are two levels above the arrays.
    const pastTheBound = input.bodyShape === 'nested' && input.nesting + 2 > MAX_JSON_DEPTH;
    let status = 0;
    let contentType = '';
    let text = '';
    try {
      const response = await fetch(info.gatewayUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept,
          ...(token !== undefined ? { authorization: spelled(token, input.spelling) } : {}),
        },
        body,
        signal: controller.signal,
      });
      status = response.status;
      contentType = response.headers.get('content-type') ?? '';
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      // pacing: the client reads for input.readMs (the case's own, with 200 ms for the reply to start) and goes away
      const deadline = setTimeout(() => controller.abort(), input.readMs + 200);
      try {
        for (;;) {
          const step = await reader.read();
          if (step.done) break;
          text += decoder.decode(step.value, { stream: true });
          if (text.length > 1_000_000) break;
        }
      } catch {
        // Aborted: the client went away mid-stream, as a browser tab does.
      } finally {
        clearTimeout(deadline);
        controller.abort();
      }
    } catch (error) {
      if (status === 0) problems.push({ kind: 'dropped', detail: `no reply: ${(error as Error).message}` });
    }
    if (status >= 500) problems.push({ kind: '5xx', detail: `HTTP ${status}: ${excerpt(text)}` });
    if (pastTheBound && status !== 400)
      problems.push({ kind: 'format', detail: `a body nested past the bound answered ${status}: ${excerpt(text)}` });
    if (status === 200 && /^text\/event-stream/.test(contentType)) {
      for (const block of text.split('\n\n')) {
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (/^event: next$/m.test(block) && data) {
          try {
            judgeErrors((JSON.parse(data) as { errors?: unknown }).errors, data, problems);
          } catch {
            problems.push({ kind: 'format', detail: `an SSE event whose data is not JSON: ${excerpt(block, 300)}` });
          }
        }
      }
    } else if (status === 200 && /^multipart\/mixed/.test(contentType)) {
      const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1] ?? 'graphql';
      const parts: Parameters<typeof judgeSameSubgraphDefer>[1] = [];
      for (const part of text.split(`\r\n--${boundary}`)) {
        const json = part.split('\r\n\r\n')[1];
        if (!json || part.startsWith('--')) continue;
        try {
          const parsed = JSON.parse(json) as {
            payload?: { errors?: unknown } | null;
            errors?: unknown;
            incremental?: { errors?: unknown; data?: unknown; path: (string | number)[] }[];
          };
          parts.push(parsed);
          judgeErrors(parsed.payload?.errors, json, problems);
          judgeErrors(parsed.errors, json, problems);
          for (const item of parsed.incremental ?? []) judgeErrors(item.errors, json, problems);
        } catch {
          // A part cut short by the client's abort is the client's doing; only whole parts are judged.
          if (json.length > 0 && text.endsWith(`--${boundary}`))
            problems.push({ kind: 'format', detail: `a multipart part that is not JSON: ${excerpt(part, 300)}` });
        }
      }
      // A whole reply (its closing delimiter read) of a deferring document: what was deferred arrived.
      if (/deferSpec/.test(contentType) && text.endsWith(`--${boundary}--\r\n`)) judgeSameSubgraphDefer(input.document, parts, problems);
    } else if (status !== 0) {
      if (!/^application\/(graphql-response\+)?json/.test(contentType)) {
        problems.push({ kind: 'format', detail: `HTTP ${status} ${contentType}: ${excerpt(text)}` });
      } else {
        try {
          judgeErrors((JSON.parse(text) as { errors?: unknown }).errors, text, problems);
        } catch {
          problems.push({ kind: 'format', detail: `HTTP ${status} JSON that does not parse: ${excerpt(text)}` });
        }
      }
    }
    return {
      problems,
      // A query may run over this door too (the document templates hold no mutation): nothing is stored either way.
      rejected: true,
      unavailable: status === 503,
      summary: `HTTP ${status} ${contentType} ${excerpt(text, 400)}`,
      label: `${status} ${contentType.split(';')[0]}`,
    };
  }

  /** A subscription of an unknown media object over graphql-ws: NOT_FOUND, then complete. */
  async probe(system: FuzzSystem): Promise<Problem[]> {
    const info = system.info;
    const socket = new WebSocket(info.gatewayUrl.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const messages: { type: string; payload?: any }[] = [];
    try {
      const outcome = await new Promise<string>((resolve) => {
        // bound: a probe not completed by then fails
        const timer = setTimeout(() => resolve('no complete within 5 s'), 5000);
        socket.once('error', (error) => resolve(`socket error ${error.message}`));
        socket.once('close', (code) => resolve(`closed ${code}`));
        socket.once('open', () =>
          socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${info.social.tokens.own}` } })),
        );
        socket.on('message', (data) => {
          const message = JSON.parse(String(data)) as { type: string; payload?: any };
          messages.push(message);
          if (message.type === 'connection_ack') {
            socket.send(
              JSON.stringify({
                type: 'subscribe',
                id: 'probe',
                payload: { query: 'subscription { mediaCommentEvents(mediaId: "17800000000000999") { cursor } }' },
              }),
            );
          }
          if (message.type === 'complete') {
            clearTimeout(timer);
            resolve('complete');
          }
        });
      });
      const next = messages.find((message) => message.type === 'next');
      if (outcome !== 'complete' || next?.payload?.errors?.[0]?.extensions?.code !== 'NOT_FOUND') {
        return [{ kind: 'liveness', detail: `the WebSocket probe: ${outcome}; ${excerpt(JSON.stringify(messages), 500)}` }];
      }
      return [];
    } finally {
      socket.terminate();
    }
  }

  describe(input: LiveInput, info: SystemInfo): string {
    if (input.door === 'http') {
      const { query, variables } = documentOf(input.document, info);
      const body =
        input.bodyShape === 'json'
          ? JSON.stringify({ query, variables })
          : input.bodyShape === 'nested'
            ? `${JSON.stringify({ query, variables })} + an unused variable ${input.nesting} arrays deep`
            : `raw variables ${input.rawVariables}`;
      return `POST ${info.gatewayUrl} accept=${input.accept} credential=${input.credential} spelled ${input.spelling} read ${input.readMs} ms body=${body}`;
    }
    const steps = input.steps.map((step) => {
      switch (step.kind) {
        case 'subscribe':
          return `subscribe ${JSON.stringify(step.id)} ${JSON.stringify(documentOf(step.document, info))}`;
        case 'raw':
          return `raw ${JSON.stringify(step.text)}`;
        case 'init':
          return `init ${step.credential} as ${step.shape}, spelled ${step.spelling}`;
        case 'flood':
          return `flood ${step.count} × ${JSON.stringify(documentOf(step.document, info))}`;
        default:
          return JSON.stringify(step);
      }
    });
    return `WebSocket ${info.gatewayUrl.replace(/^http/, 'ws')} protocol=${input.protocol} ${input.read ? 'reading' : 'never reading'}, held ${input.holdMs} ms:\n    ${steps.join('\n    ')}`;
  }
}
