/** OPML reading and writing: the real exports in test/fixtures/opml and the quirks of others. */
import fs from "fs";
import path from "path";
import { buildOpml, parseOpml } from "../../shared/opml";

const DIR = path.join(__dirname, "..", "fixtures", "opml");

describe("OPML", () => {
  test.each([
    ["antennapod_export.opml", 31], // 33 outlines, 2 URLs listed twice,
    ["german_tech_podcasts_generated.opml", 111], // 112 outlines, 1 URL twice,
    ["podcasts_export_2017.opml", 64],
  ])("%s: every feed, each URL once", (file, count) => {
    const feeds = parseOpml(fs.readFileSync(path.join(DIR, file)));
    expect(feeds).toHaveLength(count);
    for (const f of feeds) expect(f.url).toMatch(/^https?:\/\//);
  });

  test("entities in real exports are decoded", () => {
    const titles = parseOpml(fs.readFileSync(path.join(DIR, "podcasts_export_2017.opml"))).map((f) => f.title);
    expect(titles).toContain("Acquired - A Podcast About Technology Acquisitions & IPOs");
    expect(titles).toContain("Change Your Game with GTD®");
    const german = parseOpml(fs.readFileSync(path.join(DIR, "german_tech_podcasts_generated.opml"))).map((f) => f.title);
    expect(german).toContain("Auslegungssache - der c't-Datenschutz-Podcast");
  });

  test("BOM, nested folders, missing type, xmlUrl in any case or url, HTML entities, duplicates, links", () => {
    const doc = `\uFEFF<?xml version="1.0"?><opml version="1.1"><head/><body>
      <outline text="Folder"><outline text="Caf&eacute; &amp; Co" XMLURL="https://a.example/feed?x=1&amp;y=2"/>
        <outline text="Deeper"><outline title="B" url="https://b.example/f"/></outline></outline>
      <outline type="link" url="https://c.example/"/>
      <outline type="rss" xmlUrl="https://a.example/feed?x=1&amp;y=2"/>
      <outline type="rss" xmlUrl="javascript:alert(1)"/>
    </body></opml>`;
    expect(parseOpml(doc)).toEqual([
      { url: "https://a.example/feed?x=1&y=2", title: "Café & Co" },
      { url: "https://b.example/f", title: "B" },
    ]);
  });

  test("not OPML is refused", () => {
    expect(() => parseOpml("<rss><channel/></rss>")).toThrow(/OPML/);
    expect(() => parseOpml("just text")).toThrow();
  });

  test("what buildOpml writes reads back the same", () => {
    const feeds = [
      { title: 'A & <B> "quoted"', feed_url: "https://x.example/?a=1&b=2", website_url: "https://x.example/" },
      { title: "Ünïcödé", feed_url: "http://y.example/feed", website_url: null },
    ];
    const xml = buildOpml("Subscriptions", feeds);
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<opml version="2.0">/);
    expect(parseOpml(xml)).toEqual(feeds.map((f) => ({ url: f.feed_url, title: f.title })));
  });
});
