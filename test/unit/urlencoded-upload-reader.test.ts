import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  readUrlencodedUpload,
  UrlencodedBodyError,
  type UrlencodedLimits,
} from '../../rest-adapter/media-upload/urlencoded-upload-reader.ts';

const LIMITS: UrlencodedLimits = { mediaDataChars: 16, fieldBytes: 32, fields: 5 };

/** The body in chunks of `size` bytes, so escapes and separators fall across chunk boundaries. */
function chunked(body: string, size: number): Readable {
  const bytes = Buffer.from(body, 'latin1');
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return Readable.from(chunks);
}

describe('readUrlencodedUpload', () => {
  it.each([1, 2, 3, 7, 1000])('decodes the same parameters whatever the chunk size (%i bytes)', async (size) => {
    const body = 'media_category=tweet%5Fimage&media_data=QU%2BC%2FA%3D%3D&additional_owners=12%2C13&note=caf%C3%A9+au+lait';
    expect(await readUrlencodedUpload(chunked(body, size), LIMITS)).toEqual({
      params: [
        ['media_category', 'tweet_image'],
        ['additional_owners', '12,13'],
        ['note', 'café au lait'],
      ],
      mediaData: 'QU+C/A==',
      mediaDataCut: false,
    });
  });

  it('agrees with URLSearchParams on every parameter but media_data', async () => {
    const body = 'a=1&b=%zz&c=%4&=empty-name&d&e=x%20y+z&a=2';
    const expected = [...new URLSearchParams(body)];
    const read = await readUrlencodedUpload(chunked(body, 3), { ...LIMITS, fields: 10 });
    expect(read.params).toEqual(expected);
  });

  it('keeps a "+" of media_data as a space (the service reads it as the "+" a client left unescaped)', async () => {
    expect((await readUrlencodedUpload(chunked('media_data=ab+c', 2), LIMITS)).mediaData).toBe('ab c');
  });

  it('keeps exactly the limit of significant characters, and cuts one more', async () => {
    const sixteen = 'ABCDEFGHIJKLMNOP';
    expect(await readUrlencodedUpload(chunked(`media_data=${sixteen}`, 5), LIMITS)).toEqual({
      params: [],
      mediaData: sixteen,
      mediaDataCut: false,
    });
    const read = await readUrlencodedUpload(chunked(`media_data=${sixteen}Q&media_category=tweet_image`, 5), LIMITS);
    expect(read).toEqual({ params: [['media_category', 'tweet_image']], mediaData: sixteen, mediaDataCut: true });
  });

  it('does not count line breaks and tabs, which the base64 decoder skips', async () => {
    const read = await readUrlencodedUpload(chunked('media_data=ABCDEFGH%0D%0AIJKLMNOP%0A%09', 4), LIMITS);
    expect(read).toEqual({ params: [], mediaData: 'ABCDEFGH\r\nIJKLMNOP\n\t', mediaDataCut: false });
  });

  it('counts an escaped character as one', async () => {
    const read = await readUrlencodedUpload(chunked(`media_data=${'%2B'.repeat(16)}`, 4), LIMITS);
    expect(read).toEqual({ params: [], mediaData: '+'.repeat(16), mediaDataCut: false });
  });

  it('keeps a dangling escape at the end as sent', async () => {
    expect((await readUrlencodedUpload(chunked('media_data=AB%2', 1), LIMITS)).mediaData).toBe('AB%2');
    expect((await readUrlencodedUpload(chunked('media_data=AB%zzC', 1), LIMITS)).mediaData).toBe('AB%zzC');
  });

  it('reads a second media_data as an ordinary parameter, under the field limit', async () => {
    const read = await readUrlencodedUpload(chunked('media_data=AAAA&media_data=BBBB', 3), LIMITS);
    expect(read).toEqual({ params: [['media_data', 'BBBB']], mediaData: 'AAAA', mediaDataCut: false });
    await expect(readUrlencodedUpload(chunked(`media_data=AAAA&media_data=${'B'.repeat(33)}`, 3), LIMITS)).rejects.toThrow(
      new UrlencodedBodyError('the media_data parameter is larger than 32 bytes'),
    );
  });

  it('refuses a long parameter and too many parameters, after draining the body', async () => {
    const long = chunked(`media_category=${'x'.repeat(33)}&media_data=${'A'.repeat(5000)}`, 7);
    await expect(readUrlencodedUpload(long, LIMITS)).rejects.toThrow('the media_category parameter is larger than 32 bytes');
    expect(long.readableEnded).toBe(true);
    await expect(readUrlencodedUpload(chunked('a=1&b=2&c=3&d=4&e=5&f=6', 4), LIMITS)).rejects.toThrow('more than 5 parameters were sent');
  });

  it('reads an empty body as no parameters', async () => {
    expect(await readUrlencodedUpload(Readable.from([]), LIMITS)).toEqual({ params: [], mediaData: undefined, mediaDataCut: false });
  });
});
