import type { Config } from '../../../lib/config.ts';
import { createLocalBlobStore, type BlobStore } from './blob-store.ts';

/**
 * The blob store the configuration names (MEDIA_STORE): the local directory, or an S3-compatible bucket. Every process
 * that hosts the media subgraph opens its store here, so the embedded system, a media subgraph process and the bench
 * choose alike.
 */
export async function openBlobStore(media: Pick<Config['media'], 'store' | 'blobDir' | 's3'>): Promise<BlobStore> {
  if (media.store === 's3') {
    if (media.s3 === undefined) throw new TypeError('MEDIA_STORE=s3 without its bucket configuration');
    // Loaded only when chosen: the AWS SDK takes about a tenth of a second to import, at every start.
    const { createS3BlobStore } = await import('./s3-blob-store.ts');
    return createS3BlobStore(media.s3);
  }
  return createLocalBlobStore(media.blobDir);
}
