import { composeServices } from '@apollo/composition';
import { describe, expect, it } from 'vitest';
import { composeSupergraph, SUPERGRAPH_MEMBERS } from '../../schema/supergraph-config.ts';
import { readSupergraph } from '../../schema/supergraph-file.ts';

/** The committed schema/supergraph.graphql is what the gateway serves; it must be exactly what the subgraphs compose to. */
describe('the supergraph', () => {
  it('composes from the subgraphs without errors', () => {
    const result = composeServices(
      SUPERGRAPH_MEMBERS.map((member) => ({ name: member.name, typeDefs: member.typeDefs, url: member.defaultUrl })),
    );
    expect(result.errors?.map((error) => error.message) ?? []).toEqual([]);
    expect(result.supergraphSdl).toContain('type UserExample');
  });

  it('matches the committed schema/supergraph.graphql (run `npm run compose` after changing a subgraph schema)', () => {
    const composed = composeSupergraph();
    const expected = composed.endsWith('\n') ? composed : `${composed}\n`;
    expect(readSupergraph(), 'schema/supergraph.graphql is stale: run `npm run compose` and commit the result').toBe(expected);
  });

  it('keeps the password out of the composed API', () => {
    const userExample = /type UserExample[^{]*\{([^}]*)\}/.exec(readSupergraph())?.[1] ?? '';
    expect(userExample).not.toMatch(/password/i);
  });
});
