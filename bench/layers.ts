/**
 * `npm run bench -- --layers`: the CPU cost of each layer of a GetByID, measured inside the server process with no HTTP and
 * no load generator. Each probe adds one layer on top of the previous one, so the differences between rows are what each
 * layer costs; the HTTP + Express share is the scenario's server µs/req minus the matching in-process row.
 */
import { performance } from 'node:perf_hooks';
import type { ApolloServer } from '@apollo/server';
import { execute, parse } from 'graphql';
import type { Actor, TokenService } from '../lib/auth/auth.ts';
import type { GraphQLExecutor } from '../rest-adapter/graphql-executor.ts';
import type { UsersSubgraph } from '../subgraphs/users/users-subgraph.ts';
import { findUserExampleById, type UsersDb } from '../subgraphs/users/user-example.repository.ts';

export const GET_QUERY =
  'query GetByID($id: UInt64!) { userExample(id: $id) { id name email phone avatar age gender status loginAt createdAt updatedAt } }';

export interface LayerProbeDeps {
  usersDb: UsersDb;
  users: UsersSubgraph;
  tokens: TokenService;
  authorization: string;
  /** The standalone subgraph's Apollo Server. */
  subgraphApollo: ApolloServer<object>;
  /** The REST adapter's way into a gateway (in-process executor over an embedded-mode gateway). */
  gatewayExecutor: GraphQLExecutor;
}

export interface LayerProbe {
  name: string;
  run(id: string): Promise<void>;
}

export interface LayerResult {
  name: string;
  operationsPerSecond: number;
  cpuMicrosPerOperation: number;
}

function expectRecord(result: { data?: unknown; errors?: readonly unknown[] }): void {
  const record = (result.data as { userExample?: unknown } | null | undefined)?.userExample;
  if (result.errors?.length || !record) throw new Error(`probe failed: ${JSON.stringify(result.errors ?? result.data)}`);
}

/** The probes, cheapest first; each contains the previous one (the JWT probe stands apart). */
export function createLayerProbes(deps: LayerProbeDeps): LayerProbe[] {
  const document = parse(GET_QUERY);
  const actor: Actor = deps.tokens.authenticate(deps.authorization);
  const service = deps.users.service;
  return [
    {
      name: 'repository: findUserExampleById (Kysely + driver + database)',
      run: async (id) => {
        if (!(await findUserExampleById(deps.usersDb, id))) throw new Error(`no record ${id}`);
      },
    },
    {
      name: 'service: getById with an authenticated actor (+ access rule, id check)',
      run: async (id) => {
        await service.getById(actor, id);
      },
    },
    {
      name: 'auth alone: tokens.authenticate (JWT verify of the Bearer header)',
      run: async () => {
        if (deps.tokens.authenticate(deps.authorization).kind !== 'user') throw new Error('token rejected');
      },
    },
    {
      name: 'graphql-js execute on the subgraph schema (+ context with JWT verify, resolvers)',
      run: async (id) => {
        const contextValue = deps.users.createContext({
          authorization: deps.authorization,
          requestId: undefined,
          socialHost: undefined,
          signedRequest: undefined,
        });
        expectRecord(await execute({ schema: deps.users.schema, document, variableValues: { id }, contextValue }));
      },
    },
    {
      name: 'subgraph ApolloServer.executeOperation (+ Apollo request pipeline)',
      run: async (id) => {
        const contextValue = deps.users.createContext({
          authorization: deps.authorization,
          requestId: undefined,
          socialHost: undefined,
          signedRequest: undefined,
        });
        const response = await deps.subgraphApollo.executeOperation(
          { query: GET_QUERY, operationName: 'GetByID', variables: { id } },
          { contextValue },
        );
        if (response.body.kind !== 'single') throw new Error('unexpected incremental response');
        expectRecord(response.body.singleResult);
      },
    },
    {
      name: 'gateway via the REST adapter executor (+ gateway pipeline, query plan, in-process fetch, result shaping)',
      run: async (id) => {
        expectRecord(
          await deps.gatewayExecutor.execute({
            query: GET_QUERY,
            operationName: 'GetByID',
            variables: { id },
            headers: { authorization: deps.authorization, 'x-request-id': undefined },
          }),
        );
      },
    },
  ];
}

/** Runs each probe for `ms` (after a short warm-up) with `concurrency` operations in flight; CPU per operation. */
export async function measureLayers(
  probes: readonly LayerProbe[],
  options: { ms: number; concurrency: number; ids: readonly string[] },
): Promise<LayerResult[]> {
  const results: LayerResult[] = [];
  for (const probe of probes) {
    let next = 0;
    const loop = async (until: number, count: { ops: number }) => {
      while (performance.now() < until) {
        await probe.run(options.ids[next % options.ids.length]!);
        next += 1;
        count.ops += 1;
      }
    };
    const drive = async (ms: number) => {
      const count = { ops: 0 };
      const until = performance.now() + ms;
      await Promise.all(Array.from({ length: options.concurrency }, () => loop(until, count)));
      return count.ops;
    };
    await drive(Math.min(500, options.ms));
    const cpu = process.cpuUsage();
    const start = performance.now();
    const ops = await drive(options.ms);
    const elapsed = performance.now() - start;
    const used = process.cpuUsage(cpu);
    results.push({
      name: probe.name,
      operationsPerSecond: Math.round((ops * 1000) / elapsed),
      cpuMicrosPerOperation: Math.round((used.user + used.system) / ops),
    });
  }
  return results;
}
