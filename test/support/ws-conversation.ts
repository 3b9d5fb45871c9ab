import WebSocket from 'ws';

/**
 * A raw graphql-transport-ws conversation (the `ws` client, no protocol library): every message the server sends, in
 * order, and how the socket closed — what a test of the protocol's bounds and refusals reads word for word.
 */
export interface WsConversation {
  messages: { type: string; id?: string; payload?: any }[];
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  socket: WebSocket;
}

/** Opens a WebSocket offering `protocol` (null: none) and resolves once it is open. */
export function connectWs(url: string, protocol: string | null = 'graphql-transport-ws'): Promise<WsConversation> {
  const socket = protocol === null ? new WebSocket(url) : new WebSocket(url, protocol);
  const messages: WsConversation['messages'] = [];
  socket.on('message', (data) => messages.push(JSON.parse(String(data)) as WsConversation['messages'][number]));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  return new Promise((resolve, reject) => {
    socket.once('open', () =>
      resolve({
        messages,
        closed,
        socket,
        send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
      }),
    );
    socket.once('error', reject);
  });
}
