/**
 * Small but valid tagged audio files for the local podcast tests: MP3 (ID3v2.3 tag, optional cover
 * picture, then real MPEG-1 Layer III frames) and WAV (RIFF with a LIST/INFO tag), so that the real
 * tag reader (music-metadata) reads titles, tracks, dates, durations and pictures from them.
 */
import zlib from "zlib";

export interface AudioTags {
  title?: string;
  artist?: string;
  track?: number;
  /** ID3 TYER / RIFF ICRD, e.g. "2021". */
  year?: string;
  comment?: string;
  /** An embedded cover (APIC, MP3 only). */
  picture?: { mime: string; data: Buffer };
}

/** A 1x1 PNG of one colour: a real image whose bytes start with the PNG signature. */
export function pngBytes(rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const pixels = zlib.deflateSync(Buffer.from([0, ...rgb]));
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

/** ID3v2 sizes are "synchsafe": 7 bits a byte. */
function synchsafe(n: number): Buffer {
  return Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
}

function id3Frame(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(10);
  head.write(id, 0, "latin1");
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** Text frames as UTF-16 with BOM (encoding 1), so that any title survives. */
function textFrame(id: string, text: string): Buffer {
  return id3Frame(id, Buffer.concat([Buffer.from([1, 0xff, 0xfe]), Buffer.from(text, "utf16le")]));
}

/** An MP3 of `seconds` seconds of silent 128 kbit/s 44.1 kHz frames behind an ID3v2.3 tag. */
export function mp3Bytes(tags: AudioTags, seconds = 2): Buffer {
  const frames: Buffer[] = [];
  if (tags.title) frames.push(textFrame("TIT2", tags.title));
  if (tags.artist) frames.push(textFrame("TPE1", tags.artist));
  if (tags.track !== undefined) frames.push(textFrame("TRCK", String(tags.track)));
  if (tags.year) frames.push(textFrame("TYER", tags.year));
  if (tags.comment)
    frames.push(id3Frame("COMM", Buffer.concat([Buffer.from([0]), Buffer.from("eng", "latin1"), Buffer.from([0]), Buffer.from(tags.comment, "latin1")])));
  if (tags.picture) {
    // encoding, MIME, 0, picture type 3 (front cover), empty description, data
    frames.push(id3Frame("APIC", Buffer.concat([Buffer.from([0]), Buffer.from(tags.picture.mime, "latin1"), Buffer.from([0, 3, 0]), tags.picture.data])));
  }
  const body = Buffer.concat(frames);
  const header = Buffer.concat([Buffer.from("ID3", "latin1"), Buffer.from([3, 0, 0]), synchsafe(body.length)]);
  // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, no padding, stereo: 417 bytes and 1152 samples a frame.
  const frame = Buffer.alloc(417);
  Buffer.from([0xff, 0xfb, 0x90, 0x00]).copy(frame);
  const count = Math.round((seconds * 44100) / 1152);
  return Buffer.concat([header, body, ...Array.from({ length: count }, () => frame)]);
}

/** A WAV of `seconds` seconds of 8 kHz 8-bit mono silence with a LIST/INFO tag. */
export function wavBytes(tags: AudioTags, seconds = 1): Buffer {
  const sub = (id: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, "latin1");
    head.writeUInt32LE(data.length, 4);
    return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const z = (s: string) => Buffer.from(`${s}\0`, "latin1");
  const info: Buffer[] = [];
  if (tags.title) info.push(sub("INAM", z(tags.title)));
  if (tags.artist) info.push(sub("IART", z(tags.artist)));
  if (tags.track !== undefined) info.push(sub("ITRK", z(String(tags.track))));
  if (tags.year) info.push(sub("ICRD", z(tags.year)));
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0); // PCM
  fmt.writeUInt16LE(1, 2); // mono
  fmt.writeUInt32LE(8000, 4);
  fmt.writeUInt32LE(8000, 8); // bytes per second
  fmt.writeUInt16LE(1, 12); // block align
  fmt.writeUInt16LE(8, 14); // bits per sample
  const chunks = Buffer.concat([
    sub("fmt ", fmt),
    sub("LIST", Buffer.concat([Buffer.from("INFO", "latin1"), ...info])),
    sub("data", Buffer.alloc(8000 * seconds, 0x80)),
  ]);
  const riff = Buffer.alloc(12);
  riff.write("RIFF", 0, "latin1");
  riff.writeUInt32LE(chunks.length + 4, 4);
  riff.write("WAVE", 8, "latin1");
  return Buffer.concat([riff, chunks]);
}
