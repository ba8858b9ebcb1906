/** What the sync server does with what devices send: URL sanitizing, timestamps, actions checked as a whole. */
import { apiTimestamp, normaliseActions, rkey, rkeyRange, sanitizeChanges, sanitizeUrl } from "../../services/gpodder.parts/model";

describe("gPodder feed URLs", () => {
  test.each([
    ["http://example.org/feed.xml", "http://example.org/feed.xml"],
    ["  https://Example.ORG/Feed.xml\n", "https://example.org/Feed.xml"],
    ["HTTP://user:PassWord@Example.org/a?B=1#frag", "http://user:PassWord@example.org/a?B=1"],
    ["feed://example.org/rss", "http://example.org/rss"],
    ["feed:https://example.org/rss", "https://example.org/rss"],
    ["itpc://example.org/rss", "http://example.org/rss"],
    ["example.org/rss", "http://example.org/rss"],
    // Sent as stored already (sanitize's first test takes these as they are), and its edges.
    ["http://127.0.0.1:9/feeds/show-1.xml", "http://127.0.0.1:9/feeds/show-1.xml"],
    ["https://feeds.example.org?format=rss", "https://feeds.example.org?format=rss"],
    ["https://example.org.:8080/a", "https://example.org.:8080/a"],
    ["http://a.org/x#", "http://a.org/x"],
    ["http://a.org/@x", "http://a.org/@x"],
    ["http://xn--bcher-kva.example/feed", "http://xn--bcher-kva.example/feed"],
  ])("%j is stored as %j", (sent, stored) => {
    expect(sanitizeUrl(sent)).toBe(stored);
  });

  test.each(["http://example.org:65536/a", "ftp://example.org/feed", "javascript:alert(1)", "mailto:a@b.org", "http://exa mple.org/", "", "http://", 42])(
    "%j is refused",
    (sent) => {
      expect(sanitizeUrl(sent)).toBeNull();
    },
  );

  test("an upload's rewrites are listed; a non-http URL or one feed added and removed is a 400", () => {
    expect(sanitizeChanges([" http://a.org/x ", "http://a.org/y"], ["http://a.org/z"])).toEqual({
      add: ["http://a.org/x", "http://a.org/y"],
      remove: ["http://a.org/z"],
      update_urls: [[" http://a.org/x ", "http://a.org/x"]],
    });
    expect(() => sanitizeChanges(["http://a.org/x"], ["HTTP://A.org/x"])).toThrow(/added and removed/);
    expect(() => sanitizeChanges(["ftp://a.org/x"], [])).toThrow(/http\(s\)/);
    expect(() => sanitizeChanges("http://a.org/x", [])).toThrow(/list/);
  });
});

describe("episode actions", () => {
  const now = new Date("2024-02-01T12:00:00Z");

  test("timestamps: UTC without a zone, in and out", () => {
    expect(apiTimestamp("2024-01-31T10:00:00")).toBe("2024-01-31T10:00:00");
    expect(apiTimestamp("2024-01-31T10:00:00.250Z")).toBe("2024-01-31T10:00:00");
    expect(apiTimestamp("2024-01-31T12:00:00+02:00")).toBe("2024-01-31T10:00:00");
    expect(apiTimestamp("2024-01-31 10:00")).toBe("2024-01-31T10:00:00");
    expect(apiTimestamp("yesterday")).toBeNull();
    expect(apiTimestamp("2024-13-45T99:00:00")).toBeNull();
  });

  test("normalised: action in lower case, -1 as absent, play numbers only on plays, the default device", () => {
    const { actions, update_urls } = normaliseActions(
      [
        {
          podcast: "HTTP://A.org/feed",
          episode: "http://a.org/1.mp3",
          guid: "g1",
          action: "PLAY",
          timestamp: "2024-01-31T10:00:00",
          started: -1,
          position: 120,
          total: 3000,
        },
        { podcast: "http://a.org/feed", episode: "http://a.org/2.mp3", action: "Download", position: 5 },
      ],
      "nextcloud",
      now,
    );
    expect(actions).toEqual([
      {
        podcast: "http://a.org/feed",
        episode: "http://a.org/1.mp3",
        guid: "g1",
        device: "nextcloud",
        action: "play",
        timestamp: "2024-01-31T10:00:00",
        started: null,
        position: 120,
        total: 3000,
      },
      {
        podcast: "http://a.org/feed",
        episode: "http://a.org/2.mp3",
        guid: null,
        device: "nextcloud",
        action: "download",
        timestamp: "2024-02-01T12:00:00",
        started: null,
        position: null,
        total: null,
      },
    ]);
    expect(update_urls).toEqual([["HTTP://A.org/feed", "http://a.org/feed"]]);
  });

  test.each([
    [{ episode: "e", action: "play" }, /podcast is required/],
    [{ podcast: "http://a.org/f", action: "play" }, /episode is required/],
    [{ podcast: "http://a.org/f", episode: "e", action: "skip" }, /action must be one of/],
    [{ podcast: "ftp://a.org/f", episode: "e", action: "play" }, /not an http\(s\) feed URL/],
    [{ podcast: "http://a.org/f", episode: "e", action: "play", timestamp: "soon" }, /timestamp/],
    [{ podcast: "http://a.org/f", episode: "e", action: "play", position: "far" }, /position/],
    [{ podcast: "http://a.org/f", episode: "e", action: "play", device: "bad device" }, /device/],
  ])("one bad action refuses the whole upload: %j", (bad, message) => {
    expect(() => normaliseActions([{ podcast: "http://a.org/f", episode: "ok", action: "play" }, bad], null, now)).toThrow(message);
  });

  test("a user's records received after `since`: one range of one sortable key", () => {
    expect(rkey(12, 1700000000) < rkey(12, 1700000001)).toBe(true);
    expect(rkey(12, 99) < rkey(13, 1)).toBe(true);
    const { rkey: range } = rkeyRange(12, 5, 9);
    expect(range.$gt < rkey(12, 6) && rkey(12, 9) <= range.$lte && rkey(12, 10) > range.$lte).toBe(true);
  });
});
