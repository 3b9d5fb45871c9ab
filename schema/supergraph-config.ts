import { composeServices } from '@apollo/composition';
import { printSchema, type DocumentNode } from 'graphql';
import type { SubgraphName } from '../lib/config.ts';
import { accountsTypeDefs } from '../subgraphs/accounts/accounts-subgraph.ts';
import { commentsTypeDefs } from '../subgraphs/comments/comments-subgraph.ts';
import { mediaTypeDefs } from '../subgraphs/media/media-subgraph.ts';
import { usersTypeDefs } from '../subgraphs/users/users-subgraph.ts';

/**
 * The supergraph's members. The routing URLs written into the committed supergraph are the development defaults; at run
 * time the gateway takes each subgraph's URL from configuration (SUBGRAPH_<NAME>_URL) instead.
 */
export const SUPERGRAPH_MEMBERS: readonly { name: SubgraphName; typeDefs: DocumentNode; defaultUrl: string }[] = [
  { name: 'users', typeDefs: usersTypeDefs, defaultUrl: 'http://localhost:4001/graphql' },
  { name: 'accounts', typeDefs: accountsTypeDefs, defaultUrl: 'http://localhost:4002/graphql' },
  { name: 'comments', typeDefs: commentsTypeDefs, defaultUrl: 'http://localhost:4003/graphql' },
  { name: 'media', typeDefs: mediaTypeDefs, defaultUrl: 'http://localhost:4004/graphql' },
];

/** What composition gives: the supergraph the gateway serves, and its API schema (what clients see). */
export interface ComposedSchemas {
  supergraphSdl: string;
  /** The supergraph without composition's join/link machinery and inaccessible elements: what the gateway serves to clients. */
  apiSchemaSdl: string;
}

/** Composes the members' SDL with @apollo/composition; throws listing every composition error. */
export function composeSchemas(): ComposedSchemas {
  const result = composeServices(
    SUPERGRAPH_MEMBERS.map((member) => ({ name: member.name, typeDefs: member.typeDefs, url: member.defaultUrl })),
  );
  if (result.errors) {
    throw new Error(`supergraph composition failed:\n${result.errors.map((error) => `- ${error.message}`).join('\n')}`);
  }
  return {
    supergraphSdl: withNewline(result.supergraphSdl),
    apiSchemaSdl: withNewline(printSchema(result.schema.toAPISchema().toGraphQLJSSchema())),
  };
}

/** The composed supergraph SDL. */
export function composeSupergraph(): string {
  return composeSchemas().supergraphSdl;
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
