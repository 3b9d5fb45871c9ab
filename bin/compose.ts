/** npm run compose: re-composes schema/supergraph.graphql and its API schema, schema/api-schema.graphql, from the subgraphs' SDL. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { composeSchemas } from '../schema/supergraph-config.ts';
import { API_SCHEMA_FILE, SUPERGRAPH_FILE } from '../schema/supergraph-file.ts';

const { supergraphSdl, apiSchemaSdl } = composeSchemas();
writeFileSync(SUPERGRAPH_FILE, supergraphSdl);
writeFileSync(API_SCHEMA_FILE, apiSchemaSdl);
console.log(`wrote ${fileURLToPath(SUPERGRAPH_FILE)} and ${fileURLToPath(API_SCHEMA_FILE)}`);
