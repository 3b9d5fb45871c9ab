import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { connectWs as connect } from '../../support/ws-conversation.ts';

/**
 * The gateway's WebSocket door under hostile clients (issue 27, item 4; regressions of the live fuzz door): each bound
 * closes or refuses with the protocol's own code and words, never the server's internal-error code.
 */

describe('the WebSocket door under hostile clients', () => {
  let system: TestSystem;
  let fixture: SocialFixture;
  let url: string;
  beforeAll(async () => {
    system = await startTestSystem({
      SUBSCRIPTION_INIT_TIMEOUT_MS: '300',
      SUBSCRIPTIONS_PER_CONNECTION: '2',
      SUBSCRIPTION_MAX_MESSAGE_BYTES: '4096',
    });
    fixture = await createSocialFixture(system.database);
    url = system.gatewayUrl.replace(/^http/, 'ws');
  });
  afterAll(() => system?.close());

  const initialised = async () => {
    const conversation = await connect(url);
    conversation.send({ type: 'connection_init', payload: { Authorization: `Bearer ${fixture.tokens.own}` } });
    await expect.poll(() => conversation.messages.map((message) => message.type)).toContain('connection_ack');
    return conversation;
  };
  const subscription = (id: string) => ({
    type: 'subscribe',
    id,
    payload: { query: `subscription { mediaCommentEvents(mediaId: "${fixture.posts[0]}") { cursor } }` },
  });

  it('closes a connection that never sends connection_init (4408), within the bound', async () => {
    const { closed } = await connect(url);
    expect(await closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
  });

  it('closes a client that sends a message type only a server sends as a bad request (4400), not an internal error', async () => {
    const conversation = await initialised();
    conversation.send({ type: 'next', id: '1', payload: {} });
    expect(await conversation.closed).toEqual({ code: 4400, reason: 'Invalid message received' });
  });

  it('takes no subprotocol but graphql-transport-ws: none offered is closed 4406, another is not agreed to', async () => {
    const { closed } = await connect(url, null);
    expect(await closed).toEqual({ code: 4406, reason: 'Subprotocol not acceptable' });
    // subscriptions-transport-ws's protocol: the handshake names no subprotocol, which its client refuses.
    await expect(connect(url, 'graphql-ws')).rejects.toThrow('Server sent no subprotocol');
  });

  it('closes a connection that sends a frame past the message bound (1009)', async () => {
    const conversation = await initialised();
    conversation.send({ type: 'ping', payload: { pad: 'x'.repeat(5000) } });
    expect((await conversation.closed).code).toBe(1009);
  });

  it('refuses subscriptions past the per-connection bound with an error message, keeping the others', async () => {
    const conversation = await initialised();
    for (const id of ['a', 'b', 'c']) conversation.send(subscription(id));
    await expect.poll(() => conversation.messages.filter((message) => message.type === 'error')).toHaveLength(1);
    expect(conversation.messages.find((message) => message.type === 'error')).toEqual({
      type: 'error',
      id: 'c',
      payload: [{ message: 'At most 2 subscriptions per connection.', extensions: { code: 'BAD_REQUEST' } }],
    });
    conversation.socket.close(1000);
    await conversation.closed;
  });
});
