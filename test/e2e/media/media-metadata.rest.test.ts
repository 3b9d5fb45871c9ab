import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture } from '../../support/image-fixtures.ts';
import { bearerAuthorization, mediaFormData, mediaUploadUrl, sendMediaRequest, type MediaReply } from '../../support/media-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { containerAltText } from '../../support/media-containers.ts';

/**
 * POST /1.1/media/metadata/create.json: alt text on an uploaded image (JSON body {"media_id","alt_text":{"text"}}), by
 * its uploader or an additional owner, at most 1,000 characters; and the alt text where the image is used — the
 * publishing container made from it (Area C, REST and GraphQL).
 */

const standardText = (code: number, message: string) => JSON.stringify({ errors: [{ code, message }] });
const describeReply = (reply: MediaReply) => `HTTP ${reply.status}: ${reply.text.slice(0, 300)}`;

const CREATE_CONTAINER = `mutation ($accountId: ID!, $input: MediaContainerInput!) {
  createMediaContainer(accountId: $accountId, input: $input) { id altText }
}`;

for (const mode of ['embedded', 'distributed'] as const) {
  describe(`media metadata (${mode} gateway)`, () => {
    let system: TestSystem;
    let world: SocialFixture;

    beforeAll(async () => {
      system = mode === 'embedded' ? await startTestSystem() : await startDistributedTestSystem();
      world = await createSocialFixture(system.database);
    }, 60_000);

    afterAll(async () => {
      await system?.close();
    });

    const metadataUrl = () => new URL('/1.1/media/metadata/create.json', system.restUrl).toString();
    const setAltText = (body: unknown, token: string = world.tokens.own) =>
      sendMediaRequest(metadataUrl(), {
        authorization: bearerAuthorization(token),
        body: typeof body === 'string' ? body : JSON.stringify(body),
        contentType: 'application/json',
      });

    async function uploaded(params: Record<string, string> = {}): Promise<string> {
      const form = mediaFormData([
        { name: 'media', bytes: fixture('image.png'), filename: 'image.png' },
        ...Object.entries(params).map(([name, value]) => ({ name, value })),
      ]);
      const reply = await sendMediaRequest(mediaUploadUrl(system.restUrl), {
        authorization: bearerAuthorization(world.tokens.own),
        body: form,
      });
      expect(reply.status, describeReply(reply)).toBe(200);
      return reply.body.media_id_string as string;
    }

    it('stores alt text (200, no body) that the container made from the image shows, over REST and GraphQL', async () => {
      const mediaId = await uploaded();
      const text = 'A flat white in a blue cup, seen from above — latte art shaped like a leaf 🍃';
      const reply = await setAltText({ media_id: mediaId, alt_text: { text } });
      expect(reply.status, describeReply(reply)).toBe(200);
      expect(reply.text).toBe('');
      expect(reply.headers.get('x-rate-limit-remaining')).toMatch(/^\d+$/);
      expect(await containerAltText(system.restUrl, mediaId, world.tokens.own, world.accounts.bluebottle)).toBe(text);

      const response = await fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${world.tokens.own}` },
        body: JSON.stringify({
          query: CREATE_CONTAINER,
          variables: { accountId: world.accounts.bluebottle, input: { uploadMediaId: mediaId } },
        }),
      });
      const result = (await response.json()) as { data: { createMediaContainer: { altText: string } } };
      expect(result.data.createMediaContainer.altText).toBe(text);
    });

    it("replaces alt text set twice, and gives way to the container's own alt_text", async () => {
      const mediaId = await uploaded();
      expect((await setAltText({ media_id: mediaId, alt_text: { text: 'first' } })).status).toBe(200);
      expect((await setAltText({ media_id: mediaId, alt_text: { text: 'second' } })).status).toBe(200);
      expect(await containerAltText(system.restUrl, mediaId, world.tokens.own, world.accounts.bluebottle)).toBe('second');
      expect(
        await containerAltText(system.restUrl, mediaId, world.tokens.own, world.accounts.bluebottle, { alt_text: 'the post says so' }),
      ).toBe('the post says so');
    });

    it('reads a media_id written as a bare JSON number digit for digit', async () => {
      const mediaId = await uploaded();
      const reply = await setAltText(`{"media_id":${mediaId},"alt_text":{"text":"number id"}}`);
      expect(reply.status, describeReply(reply)).toBe(200);
      expect(await containerAltText(system.restUrl, mediaId, world.tokens.own, world.accounts.bluebottle)).toBe('number id');
    });

    it('lets an additional owner set it, and refuses anyone else with the ownership error', async () => {
      const shared = await uploaded({ additional_owners: world.accounts.roaster });
      expect((await setAltText({ media_id: shared, alt_text: { text: 'by roaster' } }, world.tokens.roasterOwn)).status).toBe(200);
      const own = await uploaded();
      const reply = await setAltText({ media_id: own, alt_text: { text: 'not mine' } }, world.tokens.roasterOwn);
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(standardText(324, `User id ${world.accounts.roaster} doesn't own media id ${own}`));
    });

    it('takes 1,000 characters (code points) and refuses 1,001', async () => {
      const mediaId = await uploaded();
      expect((await setAltText({ media_id: mediaId, alt_text: { text: '🍃'.repeat(1000) } })).status).toBe(200);
      const reply = await setAltText({ media_id: mediaId, alt_text: { text: 'x'.repeat(1001) } });
      expect(reply.status).toBe(400);
      expect(reply.text).toBe(
        standardText(44, 'alt_text parameter is invalid: the text is 1001 characters long; at most 1000 are allowed'),
      );
    });

    it('refuses missing or unknown ids, missing alt text, bodies that are not JSON, an unfinalized chunked upload, no credentials', async () => {
      const cases: [unknown, number, string][] = [
        [{ alt_text: { text: 'x' } }, 38, 'media_id parameter is missing.'],
        [{ media_id: '42', alt_text: { text: 'x' } }, 324, 'Invalid media id 42'],
        [{ media_id: 'abc', alt_text: { text: 'x' } }, 324, 'Invalid media id abc'],
        [{ media_id: await uploaded() }, 38, 'alt_text parameter is missing.'],
        [{ media_id: await uploaded(), alt_text: 'flat string' }, 38, 'alt_text parameter is missing.'],
        ['{"media_id": "1", alt_text', 44, 'the request body is not valid JSON: send {"media_id":"…","alt_text":{"text":"…"}}'],
      ];
      for (const [body, code, message] of cases) {
        const reply = await setAltText(body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(reply.text).toBe(standardText(code, message));
      }
      const init = await sendMediaRequest(mediaUploadUrl(system.restUrl), {
        authorization: bearerAuthorization(world.tokens.own),
        body: mediaFormData([
          { name: 'command', value: 'INIT' },
          { name: 'total_bytes', value: '10' },
          { name: 'media_type', value: 'image/png' },
        ]),
      });
      const sessionId = init.body.media_id_string as string;
      expect((await setAltText({ media_id: sessionId, alt_text: { text: 'x' } })).text).toBe(
        standardText(324, `Media id ${sessionId} is not finalized: send command=FINALIZE first`),
      );
      const anonymous = await sendMediaRequest(metadataUrl(), { body: '{}', contentType: 'application/json' });
      expect(anonymous.status).toBe(400);
      expect(anonymous.text).toBe(standardText(215, 'Bad Authentication data.'));
      const tooLarge = await setAltText(JSON.stringify({ media_id: '1', alt_text: { text: 'x'.repeat(70_000) } }));
      expect(tooLarge.text).toBe(standardText(44, 'the request body is larger than 65536 bytes'));
    });
  });
}
