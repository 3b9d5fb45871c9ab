import { expect } from 'vitest';

/**
 * Where an uploaded media's alt text shows (Area C): a publishing container made from the media id by the account,
 * read back with `fields=id,alt_text` over the Graph REST API. `extra` adds parameters to the container's creation
 * (its own alt_text, say).
 */
export async function containerAltText(
  restUrl: string,
  mediaId: string,
  token: string,
  accountId: string,
  extra: Record<string, string> = {},
): Promise<unknown> {
  const created = await fetch(new URL(`/v21.0/${accountId}/media`, restUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ upload_media_id: mediaId, caption: 'With alt text', ...extra }),
  });
  const { id } = (await created.json()) as { id: string };
  expect(created.status).toBe(200);
  const read = await fetch(new URL(`/v21.0/${id}?fields=id,alt_text&access_token=${token}`, restUrl));
  const body = (await read.json()) as Record<string, unknown>;
  expect(read.status, JSON.stringify(body)).toBe(200);
  expect(body.id).toBe(id);
  return body.alt_text;
}
