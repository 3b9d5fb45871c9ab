import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkDoor } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';
import { HostileCallbackServers } from '../support/fuzz/hostile-callback-server.ts';
import {
  WEBHOOK_MAX_RESPONSE_BYTES,
  WEBHOOKS_SYSTEM_ENV,
  WebhooksDoor,
  graphqlEndpointCases,
  handshakeCases,
  restEndpointCases,
  urlShapeCases,
} from '../support/fuzz/webhooks-door.ts';

/**
 * Fuzz of webhook subscriptions (issue 26): the verification handshake against a hostile callback server in this
 * process — the subscription is stored if and only if the callback answered a whole 200 with the challenge, the reply
 * comes within the callback's timeout in the area's format, no redirect is followed — and the subscription endpoints of
 * both hosts and GraphQL under hostile requests and callback URLs of every shape: the Graph envelope or GraphQL errors,
 * never a 5xx, an app's subscriptions only to its own token, no refused address reached, no refused request stored.
 */

const servers = new HostileCallbackServers(WEBHOOK_MAX_RESPONSE_BYTES);
const door = new WebhooksDoor(servers);
const suite = useFuzzSystem('webhooks', 5, { env: { ...WEBHOOKS_SYSTEM_ENV } }, () => door.close());
beforeAll(() => servers.start());
afterAll(() => servers.close());

describe('webhook subscriptions under a hostile callback and hostile requests', () => {
  it(
    'stores a subscription only when the callback answers the challenge (REST)',
    () => checkDoor('handshake over REST', door, suite.system, handshakeCases('rest'), suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'stores a subscription only when the callback answers the challenge (GraphQL)',
    () => checkDoor('handshake over GraphQL', door, suite.system, handshakeCases('graphql'), suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'refuses callback URLs the SSRF rules forbid, and reaches none of them',
    () => checkDoor('callback URL shapes', door, suite.system, urlShapeCases, suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile requests on the subscription endpoints of both hosts',
    () => checkDoor('REST endpoints', door, suite.system, restEndpointCases, suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile GraphQL operations on webhook subscriptions',
    () => checkDoor('GraphQL operations', door, suite.system, graphqlEndpointCases, suite.tally),
    propertyTestTimeoutMs(),
  );
});
