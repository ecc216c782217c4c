/*
 * Hostile Matroska files written byte by byte (no encoder can be asked for them): a header with 10 000 tracks, a video
 * track claiming an absurd picture size. EBML: element = id, size (here always the 8-byte vint form), payload.
 */
const vint8 = (n: number) => {
  const b = Buffer.alloc(8);
  b[0] = 0x01;
  b.writeUIntBE(n, 2, 6);
  return b;
};
const el = (id: number, ...payload: Buffer[]) => {
  const data = Buffer.concat(payload);
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, "0"), "hex");
  return Buffer.concat([idBytes, vint8(data.length), data]);
};
const uint = (id: number, v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v);
  return el(id, b);
};
const str = (id: number, s: string) => el(id, Buffer.from(s, "latin1"));
const float = (id: number, v: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(v);
  return el(id, b);
};

function matroska(tracks: Buffer[], frame: Buffer): Buffer {
  const header = el(0x1a45dfa3, uint(0x4286, 1), uint(0x42f7, 1), uint(0x42f2, 4), uint(0x42f3, 8), str(0x4282, "matroska"), uint(0x4287, 4), uint(0x4285, 2));
  const info = el(0x1549a966, uint(0x2ad7b1, 1_000_000), str(0x4d80, "cva-test"), str(0x5741, "cva-test"));
  // One cluster with one block of track 1 (track number vint 0x81, relative timestamp 0, keyframe flag): the demuxer
  // reads the header up to the first cluster.
  const block = el(0xa3, Buffer.from([0x81, 0x00, 0x00, 0x80]), frame);
  const body = Buffer.concat([info, el(0x1654ae6b, ...tracks), el(0x1f43b675, uint(0xe7, 0), block)]);
  // Segment of known size.
  return Buffer.concat([header, el(0x18538067, body)]);
}

/** A Matroska header declaring `n` PCM audio tracks (and no media data). */
export function manyTracksMkv(n: number): Buffer {
  const tracks: Buffer[] = [];
  for (let i = 1; i <= n; i++) {
    tracks.push(el(0xae, uint(0xd7, i), uint(0x73c5, i), uint(0x83, 2), str(0x86, "A_PCM/INT/LIT"),
      el(0xe1, float(0xb5, 8000), uint(0x9f, 1), uint(0x6264, 16))));
  }
  return matroska(tracks, Buffer.alloc(16));
}

/** A Matroska header with one VP8 video track claiming `width`x`height`. */
export function hugeVideoMkv(width: number, height: number): Buffer {
  // A VP8 keyframe header (frame tag, start code 9d 01 2a, 14-bit sizes) claiming the same size as the container.
  const frame = Buffer.alloc(32);
  frame.set([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]);
  frame.writeUInt16LE(width & 0x3fff, 6);
  frame.writeUInt16LE(height & 0x3fff, 8);
  return matroska([el(0xae, uint(0xd7, 1), uint(0x73c5, 1), uint(0x83, 1), str(0x86, "V_VP8"), el(0xe0, uint(0xb0, width), uint(0xba, height)))], frame);
}
