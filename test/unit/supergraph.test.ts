import { composeServices } from '@apollo/composition';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { composeSchemas, SUPERGRAPH_MEMBERS } from '../../schema/supergraph-config.ts';
import { API_SCHEMA_FILE, readSupergraph } from '../../schema/supergraph-file.ts';

/** The committed schema/supergraph.graphql is what the gateway serves; it must be exactly what the subgraphs compose to. */
describe('the supergraph', () => {
  it('composes from the subgraphs without errors', () => {
    const result = composeServices(
      SUPERGRAPH_MEMBERS.map((member) => ({ name: member.name, typeDefs: member.typeDefs, url: member.defaultUrl })),
    );
    expect(result.errors?.map((error) => error.message) ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('type UserExample');
  });

  it('matches the committed schema/supergraph.graphql and schema/api-schema.graphql (run `npm run compose` after changing a subgraph schema)', () => {
    const { supergraphSdl, apiSchemaSdl } = composeSchemas();
    expect(readSupergraph(), 'schema/supergraph.graphql is stale: run `npm run compose` and commit the result').toBe(supergraphSdl);
    expect(readFileSync(API_SCHEMA_FILE, 'utf8'), 'schema/api-schema.graphql is stale: run `npm run compose` and commit the result').toBe(
      apiSchemaSdl,
    );
  });

  it('keeps the password out of the composed API', () => {
    const userExample = /type UserExample[^{]*\{([^}]*)\}/.exec(readSupergraph())?.[1] ?? '';
    expect(userExample).not.toMatch(/password/i);
  });
});
