import {
  buildMediaMetadataPath,
  buildMediaUploadPath,
  buildMediaV2Paths,
  mediaComponentSchemas,
  mediaV2ComponentSchemas,
} from './media-upload.openapi.ts';
import { buildGraphPaths, graphComponentResponses, graphComponentSchemas } from './social.openapi.ts';
import type { GraphHost } from './social-openapi-parts.ts';
import {
  BEARER_AUTH,
  ID_PARAMETER_DESCRIPTION,
  USER_EXAMPLE_OPERATIONS,
  userExampleDefinitions,
  type ApiDocument,
} from './user-example.swagger.ts';

/**
 * The OpenAPI 3 document of every REST path of the four areas: Area A (the same operations and messages as the Swagger 2.0
 * document, its definitions reused as components), the Graph-style paths of Areas B and C on their two hosts, and Area
 * D's upload. Paths served on one host only name it in their own `servers`.
 */

/** Base URLs of the two REST listeners (the own-login host also serves Areas A and D); undefined when unknown. */
export interface OpenApiServers {
  own: string | undefined;
  parent: string | undefined;
  /** The host listed first (the listener serving the document, so Swagger UI calls its own origin by default). */
  first: GraphHost;
}

const SERVER_DESCRIPTION: Record<GraphHost, string> = {
  own: 'Own-login host: Areas A and D, and the social graph with Business Login tokens',
  parent: 'Parent-platform host: the social graph with Login for Business tokens',
};

/** Rewrites Swagger 2.0 `#/definitions/` references into OpenAPI 3 component references. */
function asComponents<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/definitions/', '"#/components/schemas/')) as T;
}

function userExamplePaths(): Record<string, Record<string, unknown>> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of USER_EXAMPLE_OPERATIONS) {
    const responses: Record<string, unknown> = {
      200: { description: 'A successful response.', content: { 'application/json': { schema: ref(operation.reply) } } },
    };
    for (const status of operation.errors) responses[status] = { $ref: `#/components/responses/RpcStatus${status}` };
    responses.default = { description: 'An unexpected error response.', content: { 'application/json': { schema: ref('rpcStatus') } } };
    (paths[operation.path] ??= {})[operation.method] = {
      tags: ['userExample'],
      summary: operation.summary,
      operationId: `userExample_${operation.rpc}`,
      parameters: operation.path.includes('{id}')
        ? [
            {
              name: 'id',
              in: 'path',
              required: true,
              description: ID_PARAMETER_DESCRIPTION,
              schema: { type: 'string', format: 'uint64', pattern: '^\\d+$' },
            },
          ]
        : [],
      ...(operation.body && { requestBody: { required: true, content: { 'application/json': { schema: ref(operation.body) } } } }),
      responses,
      security: operation.authenticated ? [{ [BEARER_AUTH]: [] }] : [{}, { [BEARER_AUTH]: [] }],
    };
  }
  return paths;
}

const RPC_STATUS_RESPONSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT (3): validation (with a google.rpc.BadRequest detail), malformed body, bad id or list params.',
  401: 'UNAUTHENTICATED (16): token missing, malformed, badly signed or expired; WWW-Authenticate names the problem.',
  403: "PERMISSION_DENIED (7): another user's record.",
  404: 'NOT_FOUND (5): no live record with that id.',
  409: 'ALREADY_EXISTS (6): the e-mail address is already used.',
  503: 'UNAVAILABLE (14): the database is unreachable.',
};

/**
 * Builds the document. `graphSchemas` comes from buildGraphSchemas (made once per process: it reads the supergraph).
 */
export function buildOpenApiDocument(servers: OpenApiServers, graphSchemas: Record<string, unknown>): ApiDocument {
  const serverOf = (host: GraphHost) => {
    const url = servers[host];
    return url === undefined ? undefined : { url, description: SERVER_DESCRIPTION[host] };
  };
  const order: GraphHost[] = servers.first === 'own' ? ['own', 'parent'] : ['parent', 'own'];
  const topServers = order.map(serverOf).filter((server) => server !== undefined);
  const onlyOn = (host: GraphHost) => {
    const server = serverOf(host);
    return server ? { servers: [server] } : {};
  };

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, item] of Object.entries(userExamplePaths())) paths[path] = { ...onlyOn('own'), ...item };
  const upload = buildMediaUploadPath();
  paths[upload.path] = { ...onlyOn('own'), ...upload.item };
  const metadata = buildMediaMetadataPath();
  paths[metadata.path] = { ...onlyOn('own'), ...metadata.item };
  for (const v2 of buildMediaV2Paths()) paths[v2.path] = { ...onlyOn('own'), ...v2.item };
  for (const entry of buildGraphPaths()) {
    paths[entry.path] = { ...(entry.hosts?.length === 1 ? onlyOn(entry.hosts[0]!) : {}), ...entry.operations };
  }

  const rpcResponses = Object.fromEntries(
    Object.entries(RPC_STATUS_RESPONSES).map(([status, description]) => [
      `RpcStatus${status}`,
      {
        description,
        ...(status === '401' && { headers: { 'WWW-Authenticate': { schema: { type: 'string', example: 'Bearer realm="tributary"' } } } }),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/rpcStatus' } } },
      },
    ]),
  );

  return {
    openapi: '3.0.3',
    info: {
      title: 'Tributary REST API',
      version: '2.0',
      description:
        'Every REST path of Tributary: Area A (user records, the HTTP mapping of the userExample gRPC service; also as ' +
        'Swagger 2.0 at /apis/swagger/doc.json), Areas B and C (comments and professional accounts of the social graph, ' +
        'Graph API style, on two hosts), and Area D (simple image upload). Each path runs as one GraphQL operation through ' +
        'the federated gateway. Errors: google.rpc.Status (A), the Graph error envelope (B, C), the upload error bodies (D).',
    },
    servers: topServers,
    tags: [
      { name: 'userExample', description: 'Area A: user records (Bearer JWT).' },
      { name: 'comments', description: 'Area B: comments of the social graph.' },
      { name: 'accounts', description: 'Area C: professional accounts of the social graph, and their edges.' },
      { name: 'media', description: 'Area D: image upload, chunked upload and alt text (API 1.1).' },
      {
        name: 'media v2',
        description: 'Area D on X API v2’s paths: the same uploads, sessions and limits, with v2’s data replies and problems.',
      },
    ],
    paths,
    components: {
      schemas: {
        ...asComponents(userExampleDefinitions()),
        ...graphSchemas,
        ...graphComponentSchemas(),
        ...mediaComponentSchemas(),
        ...mediaV2ComponentSchemas(),
      },
      responses: { ...rpcResponses, ...graphComponentResponses() },
      securitySchemes: {
        [BEARER_AUTH]: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Area A: type Bearer your-jwt-token to Value (npm run token mints one).',
        },
        GraphAccessToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'Areas B and C: the token as the access_token parameter (npm run social-token mints one).',
        },
        GraphBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Areas B and C: the same token in `Authorization: Bearer` (or `OAuth`).',
        },
        GraphAppAccessToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description:
            "An app's webhook subscriptions: the app access token `<app-id>|<app-secret>` as the access_token parameter (npm run social-app makes an app).",
        },
        GraphAppBearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'The same app access token in `Authorization: Bearer` (or `OAuth`).',
        },
        UploadAuthorization: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Area D: `Bearer <social graph user token>`, or an OAuth 1.0a `OAuth oauth_consumer_key="…", …` header.',
        },
      },
    },
  };
}
