import { createFile } from 'mp4box';

/**
 * Small MP4 files for the chunked upload's tests, written by mp4box's ISO BMFF writer (ftyp, moov, mdat): a valid
 * H.264 (avc1) video track of `frames` samples, or an audio-only file (a container without video).
 */

// A Baseline-profile SPS and PPS for 64×48: enough for the avcC box a video track's sample entry carries.
const SPS = [0x67, 0x42, 0x00, 0x1e, 0x95, 0xa0, 0x50, 0x7c, 0x80];
const PPS = [0x68, 0xce, 0x38, 0x80];

function written(file: ReturnType<typeof createFile>): Buffer {
  const stream = file.getBuffer();
  return Buffer.from(stream.buffer as ArrayBuffer);
}

/** An MP4 with one video track (avc1, `width`×`height`) of `frames` one-slice samples, moov before mdat. */
export function mp4Video(options: { width?: number; height?: number; frames?: number } = {}): Buffer {
  const file = createFile();
  const avcC = new Uint8Array([1, 0x42, 0x00, 0x1e, 0xff, 0xe1, 0, SPS.length, ...SPS, 1, 0, PPS.length, ...PPS]);
  const track = file.addTrack({
    type: 'avc1',
    width: options.width ?? 64,
    height: options.height ?? 48,
    timescale: 1000,
    avcDecoderConfigRecord: avcC.buffer,
    brands: ['isom', 'iso2', 'avc1', 'mp41'],
  });
  for (let index = 0; index < (options.frames ?? 3); index += 1) {
    file.addSample(track, new Uint8Array([0, 0, 0, 4, 0x65, 0x88, 0x84, index]), { duration: 40, is_sync: index === 0 });
  }
  return written(file);
}

/** An MP4 container whose only track is audio (mp4a): a real MP4, but not a video. */
export function mp4AudioOnly(): Buffer {
  const file = createFile();
  const track = file.addTrack({
    type: 'mp4a',
    timescale: 44_100,
    channel_count: 2,
    samplesize: 16,
    samplerate: 44_100,
    hdlr: 'soun',
    brands: ['isom', 'mp41'],
  });
  for (let index = 0; index < 3; index += 1) file.addSample(track, new Uint8Array([0x21, 0x10, index]), { duration: 1024, is_sync: true });
  return written(file);
}
