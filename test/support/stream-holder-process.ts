import WebSocket from 'ws';

/**
 * The child process of stream-holder.ts: opens subscriptions on a gateway and holds them open, so that what the gateway's
 * process holds for them can be weighed without the clients' own memory. Driven over IPC: `open` opens one stream per
 * body (SSE or multipart: a POST whose reply stays open; WebSocket: a subscribe message each, over `connections`
 * connections) and answers once every stream has sent its first bytes (or a refusal); `close` ends them all and answers.
 */

export type HolderCommand =
  | { kind: 'open'; transport: 'sse' | 'multipart'; url: string; token: string; bodies: string[] }
  | { kind: 'open'; transport: 'websocket'; url: string; token: string; bodies: string[]; connections: number }
  | { kind: 'close' };

export interface HolderReply {
  /** Per body: the HTTP status (200 for a stream that opened; a WebSocket subscription's is 200 unless it got an `error`). */
  statuses: number[];
  /** The first refusal's text, for the test's message. */
  refusal?: string;
}

const held: (() => void)[] = [];

async function openHttp(command: Extract<HolderCommand, { transport: 'sse' | 'multipart' }>): Promise<HolderReply> {
  const accept = command.transport === 'sse' ? 'text/event-stream' : 'multipart/mixed;subscriptionSpec=1.0';
  let refusal: string | undefined;
  const statuses = await Promise.all(
    command.bodies.map(async (body) => {
      const controller = new AbortController();
      const response = await fetch(command.url, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${command.token}` },
        body,
      });
      if (response.status !== 200) {
        refusal ??= await response.text();
        return response.status;
      }
      // The first bytes (SSE's comment, multipart's first delimiter): the stream is open at the gateway.
      const reader = response.body!.getReader();
      await reader.read();
      held.push(() => controller.abort());
      return 200;
    }),
  );
  return { statuses, ...(refusal !== undefined ? { refusal } : {}) };
}

async function openWebSocket(command: Extract<HolderCommand, { transport: 'websocket' }>): Promise<HolderReply> {
  const statuses: number[] = Array.from({ length: command.bodies.length }, () => 0);
  let refusal: string | undefined;
  const perConnection = Math.ceil(command.bodies.length / command.connections);
  await Promise.all(
    Array.from({ length: command.connections }, async (_unused, connection) => {
      const socket = new WebSocket(command.url.replace(/^http/, 'ws'), 'graphql-transport-ws');
      held.push(() => socket.close(1000));
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const ids = new Map<string, number>();
      const settled = new Promise<void>((resolve) => {
        let waiting = 0;
        socket.on('message', (data) => {
          const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: unknown };
          if (message.type === 'connection_ack') {
            for (
              let index = connection * perConnection;
              index < Math.min(command.bodies.length, (connection + 1) * perConnection);
              index += 1
            ) {
              const id = String(index);
              ids.set(id, index);
              waiting += 1;
              socket.send(JSON.stringify({ type: 'subscribe', id, payload: JSON.parse(command.bodies[index]!) as unknown }));
            }
            if (waiting === 0) resolve();
            // A subscription that is open sends nothing until an event; a `ping` after the subscribes is answered once
            // the server has read them all (messages are handled in order), and each refused one has had its error.
            socket.send(JSON.stringify({ type: 'ping' }));
          } else if (message.type === 'error') {
            statuses[ids.get(message.id!)!] = 400;
            refusal ??= JSON.stringify(message.payload);
          } else if (message.type === 'pong') {
            resolve();
          }
        });
        socket.once('close', (code, reason) => {
          refusal ??= `closed ${code} ${String(reason)}`;
          resolve();
        });
      });
      socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${command.token}` } }));
      await settled;
      for (const index of ids.values()) if (statuses[index] === 0) statuses[index] = 200;
    }),
  );
  return { statuses, ...(refusal !== undefined ? { refusal } : {}) };
}

process.on('message', (command: HolderCommand) => {
  const answer = async (): Promise<HolderReply> => {
    if (command.kind === 'close') {
      for (const close of held.splice(0)) close();
      return { statuses: [] };
    }
    return command.transport === 'websocket' ? openWebSocket(command) : openHttp(command);
  };
  answer().then(
    (reply) => process.send!(reply),
    (error: unknown) => process.send!({ statuses: [], refusal: String(error) } satisfies HolderReply),
  );
});
