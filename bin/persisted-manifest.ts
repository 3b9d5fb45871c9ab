/**
 * npm run persisted-manifest -- <file.graphql>... > persisted-query-manifest.json: writes Apollo's persisted query
 * manifest for GRAPHQL_PERSISTED_OPERATIONS, one operation per file (with the fragments it uses), each listed with the
 * SHA-256 of its text as its id. Front-ends built with Apollo Client generate theirs with
 * @apollo/generate-persisted-query-manifest instead; both write the same format.
 */
import { readFileSync } from 'node:fs';
import { createPersistedQueryManifest } from '../lib/graphql/graphql-persisted-operations.ts';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npm run -s persisted-manifest -- <file.graphql>... > persisted-query-manifest.json');
  process.exit(2);
}
const manifests = files.map((file) => {
  try {
    return createPersistedQueryManifest([readFileSync(file, 'utf8').trim()]);
  } catch (error) {
    console.error(`persisted-manifest: ${file}: ${(error as Error).message}`);
    process.exit(1);
  }
});
console.log(JSON.stringify({ ...manifests[0]!, operations: manifests.flatMap((manifest) => manifest.operations) }, null, 2));
