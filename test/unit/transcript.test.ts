/** Transcripts of every format in test/fixtures/transcripts read into one shape. */
import fs from "fs";
import path from "path";
import { detectFormat, parseTranscript } from "../../services/p20.parts/transcript";

const read = (f: string) => fs.readFileSync(path.join(__dirname, "..", "fixtures", "transcripts", f), "utf8");

describe("transcripts", () => {
  test("SRT with a speaker prefix", () => {
    const body = read("podcast_namespace_transcript_example.srt");
    expect(detectFormat(body, null, "https://x.example/t.srt")).toBe("srt");
    const s = parseTranscript(body, "srt");
    expect(s[0]).toEqual({ start: 0.179, end: 2.399, speaker: "Travis", text: "When you first get started in podcasting, it's" });
    expect(s[1]).toMatchObject({ start: 2.4, speaker: null });
  });

  test("SRT subtitles without speakers, sniffed from the text", () => {
    const body = read("pinchflat_ytdlp_subtitle.srt");
    expect(detectFormat(body)).toBe("srt");
    const s = parseTranscript(body, "srt");
    expect(s[3]).toEqual({ start: 12, end: 15, speaker: null, text: "Each subtitle entry consists of a number, a timecode, and the subtitle text." });
  });

  test("WebVTT voices and entities", () => {
    const body = read("podcast_namespace_transcript_example.vtt");
    expect(detectFormat(body, "text/vtt")).toBe("vtt");
    const s = parseTranscript(body, "vtt");
    expect(s[2]).toEqual({ start: 6.09, end: 11.61, speaker: "Sarah", text: "include in one? Welcome to Podcasting Q&A, where you learn" });
    expect(s.find((x) => x.speaker === "Gillian")).toMatchObject({ start: 19.08 });
  });

  test("the namespace's JSON", () => {
    const body = read("podcast_namespace_transcript_example.json");
    expect(detectFormat(body, "application/json")).toBe("json");
    expect(parseTranscript(body, "json")).toEqual([
      { start: 0.5, end: 0.75, speaker: "Darth Vader", text: "I" },
      { start: 1, end: 1.25, speaker: "Darth Vader", text: "am" },
      { start: 1.5, end: 2, speaker: "Darth Vader", text: "your" },
      { start: 2.25, end: 2.5, speaker: "Darth Vader", text: "father." },
      { start: 2.75, end: 3, speaker: "Luke", text: "Nooooo" },
    ]);
  });

  test("the namespace's HTML", () => {
    const body = read("podcast_namespace_transcript_example.html");
    expect(detectFormat(body, "text/html")).toBe("html");
    const s = parseTranscript(body, "html");
    expect(s[0]).toMatchObject({ start: 0, speaker: "Travis", text: expect.stringMatching(/^When you first get started in podcasting, it's almost/) });
    expect(s.length).toBeGreaterThan(1);
    expect(s[0].end).toBe(s[1].start);
  });
});
