import type { SubgraphMigrations } from '../../../../lib/database/database.ts';
import * as uploads from './2026-11-21-001-uploads.ts';
import * as chunkedUploads from './2026-11-24-001-chunked-uploads.ts';
import * as pendingBlobs from './2026-11-27-001-pending-blobs.ts';

/** Migrations of the media store (Area D), shared by the media subgraph and the accounts subgraph's containers. */
export const mediaMigrations: SubgraphMigrations = {
  schema: 'media',
  migrations: {
    '2026-11-21-001-uploads': uploads,
    '2026-11-24-001-chunked-uploads': chunkedUploads,
    '2026-11-27-001-pending-blobs': pendingBlobs,
  },
};
