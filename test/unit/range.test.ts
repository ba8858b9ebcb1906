import { extensionFor, isMediaType, parseRange } from "../../shared/range";

describe("HTTP Range parsing", () => {
  test.each([
    [undefined, null],
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=990-", { start: 990, end: 999 }],
    ["bytes=990-5000", { start: 990, end: 999 }],
    ["bytes=-10", { start: 990, end: 999 }],
    ["bytes=-5000", { start: 0, end: 999 }],
    ["bytes=1000-", "unsatisfiable"],
    ["bytes=-0", "unsatisfiable"],
    ["bytes=5-1", null],
    ["bytes=0-1,5-6", null],
    ["items=0-1", null],
    ["bytes=-", null],
  ])("%s of 1000 bytes -> %j", (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });

  test("file extensions come from the content type, else a known extension of the URL", () => {
    expect(extensionFor("audio/mpeg; charset=binary", null)).toBe("mp3");
    expect(extensionFor("audio/x-m4a", "https://x/a.mp3")).toBe("m4a");
    expect(extensionFor("application/octet-stream", "https://x/a.ogg?t=1")).toBe("ogg");
    expect(extensionFor(null, "https://x/a.exe")).toBe("bin");
  });

  test("media types", () => {
    expect(isMediaType("audio/mpeg")).toBe(true);
    expect(isMediaType("video/mp4")).toBe(true);
    expect(isMediaType(null)).toBe(true);
    expect(isMediaType("text/html; charset=utf-8")).toBe(false);
  });
});
