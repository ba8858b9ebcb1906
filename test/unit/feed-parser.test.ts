import * as fs from "fs";
import * as path from "path";
import { FeedParseError, parseFeed, ParsedFeed } from "../../shared/feed-parser";
import { decodeBytes, decodeEntities, parseDate, parseDuration, parseExplicit } from "../../shared/feed-parser/text";

const DIR = path.join(__dirname, "../fixtures/feeds");
const FIXTURES = fs
  .readdirSync(DIR)
  .filter((f) => /\.(xml|rss)$/.test(f))
  .sort();
const cache = new Map<string, ParsedFeed>();

function load(name: string): ParsedFeed {
  let feed = cache.get(name);
  if (!feed) {
    feed = parseFeed(fs.readFileSync(path.join(DIR, name)));
    cache.set(name, feed);
  }
  return feed;
}

function expectNotAFeed(input: string | Buffer, reason: RegExp): void {
  let error: unknown;
  try {
    parseFeed(input);
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(FeedParseError);
  expect((error as FeedParseError).message).toMatch(/^not a podcast feed: /);
  expect((error as FeedParseError).reason).toMatch(reason);
}

describe("feed parser: every fixture feed", () => {
  test("has fixtures to parse", () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(27);
  });

  test.each(FIXTURES)("%s parses with as many episodes as it has <item>/<entry> elements", (name) => {
    const xml = fs.readFileSync(path.join(DIR, name), "latin1");
    const truth = (xml.match(/<(?:item|entry)[\s>/]/g) ?? []).length;
    const feed = load(name);
    expect(feed.episodes).toHaveLength(truth);
    expect(feed.title).toBeTruthy();
    for (const ep of feed.episodes) expect(typeof ep.guid).toBe("string");
    // Plain data: survives a JSON round trip unchanged (it is sent over NATS).
    expect(JSON.parse(JSON.stringify(feed))).toEqual(feed);
  });

  test.each([
    ["npr_planet_money_355items_large.xml", 355],
    ["taverncast_131items_itunes_missing_image.rss", 131],
    ["realworld_sentimental_garbage_138items_cdata.xml", 138],
    ["launched_36items_cdata_html.xml", 36],
    ["podcasting20_pc20rss_56items_p20tags.xml", 56],
    ["endorphine_fuer_delfine_de_32items_itunes_keywords.rss", 32],
    ["all_things_chemical_4items.xml", 4],
    ["minimal_itunes_3items.xml", 3],
    ["narro_single_item.rss", 1],
    ["empty_channel_no_items.xml", 0],
    ["pc20_publisher_medium_no_items.xml", 0],
    ["rss092_enclosures_heraldsun.rss", 2],
    ["handmade_entities_bom_explicit_6items.xml", 6],
    ["handmade_atom_2entries.xml", 2],
  ])("%s has %i episodes", (name, count) => {
    expect(load(name).episodes).toHaveLength(count);
  });

  test("gives the same result for a Buffer and its UTF-8 string", () => {
    const buf = fs.readFileSync(path.join(DIR, "launched_36items_cdata_html.xml"));
    expect(parseFeed(buf.toString("utf8"))).toEqual(parseFeed(buf));
  });
});

describe("feed parser: field values", () => {
  test("reads iTunes channel and item fields (all_things_chemical)", () => {
    const feed = load("all_things_chemical_4items.xml");
    expect(feed).toMatchObject({
      format: "rss",
      version: "2.0",
      title: "All Things Chemical",
      author: "Bergeson & Campbell, PC",
      owner_email: "info@lawbc.com",
      explicit: false,
      categories: ["Business", "Business News", "Government & Organizations"],
    });
    expect(feed.image).toMatch(/^https:\/\/ssl-static\.libsyn\.com\//);
    expect(feed.episodes[0]).toMatchObject({
      title: "Confidential Business Information under TSCA",
      duration: 2398,
      pub_date: "2018-11-29T10:30:00.000Z",
      enclosure_length: 28882931,
      guid: "9a7e7418443444538633719efdfbe7fa",
      episode: 3,
      episode_type: "full",
      explicit: false,
    });
  });

  test("flattens nested itunes:category and salvages a mangled itunes:image (taverncast)", () => {
    const feed = load("taverncast_itunes_nested_categories.rss");
    expect(feed.categories).toEqual(["Society & Culture", "Games & Hobbies", "Hobbies"]);
    expect(feed.image).toBe("http://www.taverncast.com/itunes-logo.png");
    expect(feed.owner_email).toBe("taverncast@taverncast.com");
    expect(feed.episodes[0].image).toBe(feed.image);
    expect(feed.episodes[0].description).toMatch(/^Taverncast tosses around the age old topic: time travel!/);
  });

  test("reads episodeType, episode number and h:mm:ss durations (baywatch berlin, npr)", () => {
    expect(load("baywatch_berlin_itunes_episodeType.rss").episodes[0]).toMatchObject({ episode_type: "trailer", episode: 1, duration: 114 });
    const npr = load("npr_planet_money_355items_large.xml");
    expect(npr.title).toBe("Planet Money");
    expect(npr.episodes[0]).toMatchObject({
      title: "#980: The Fed Fights The Virus",
      duration: 1097,
      pub_date: "2020-03-16T21:50:01.000Z",
      guid: "5b88529b-fed8-4562-8312-61e4b24b0451",
    });
    expect(npr.episodes[354].title).toBe("#739: Finding The Fake-News King");
  });

  test("reads itunes:block, paged-feed links and keywords in both spellings", () => {
    const paged = load("itunes_block_paged_feed_links.rss");
    expect(paged).toMatchObject({ itunes_block: true, self_url: "http://example.org/index.atom?page=3", next_url: "http://example.org/index.atom?page=4" });
    expect(load("endorphine_fuer_delfine_de_32items_itunes_keywords.rss").keywords).toEqual(["Moderatoren"]);
    expect(load("swr2_impuls_itunes_keywords.rss").keywords).toEqual(expect.arrayContaining(["Gesundheit und Mensch", "Wissen"]));
  });

  test("reads RSS 0.92 enclosures, using the enclosure URL as guid and a colon-less time", () => {
    const feed = load("rss092_enclosures_heraldsun.rss");
    expect(feed.version).toBe("0.92");
    expect(feed.pub_date).toBe("2002-04-03T15:00:00.000Z");
    expect(feed.episodes.map((e) => [e.guid, e.enclosure_url, e.enclosure_length, e.enclosure_type])).toEqual([
      ["http://www.oreilly.com/001.mp3", "http://www.oreilly.com/001.mp3", 54321, "audio/mpeg"],
      ["http://www.oreilly.com/002.mp3", "http://www.oreilly.com/002.mp3", 54321, "audio/mpeg"],
    ]);
  });

  test("reads the channel Podcasting 2.0 tags of the official example", () => {
    const feed = load("podcast_namespace_official_example.xml");
    expect(feed).toMatchObject({
      podcast_guid: "y0ur-gu1d-g035-h3r3",
      medium: "podcast",
      locked: true,
      locked_owner: "podcastowner@example.com",
      funding: [{ url: "https://example.com/donate", text: "Support the show!" }],
      license: { name: "my-podcast-license-v1", url: "https://example.org/mypodcastlicense/full.pdf" },
      locations: [{ name: "Austin, TX", geo: "geo:30.2672,97.7431", osm: "R113314", rel: "creator", country: "US" }],
      podping: true,
      chat: { server: "example.com", protocol: "matrix", account_id: "@bob:example.com", space: "#general:example.com" },
      blocks: [
        { id: null, blocked: true },
        { id: "google", blocked: false },
        { id: "amazon", blocked: false },
      ],
    });
    expect(feed.values[0]).toMatchObject({ type: "lightning", method: "keysend", suggested: "0.00000005000" });
    expect(feed.values[0].recipients.map((r) => [r.name, r.split])).toEqual([
      ["podcaster", 99],
      ["hosting company", 1],
    ]);
    expect(feed.trailers[0]).toMatchObject({
      url: "https://example.org/trailers/teaser",
      title: "Coming April 1st, 2021",
      length: 12345678,
      pub_date: "2021-04-01T13:00:00.000Z",
    });
    expect(feed.images[1]).toEqual({
      url: "https://example.com/images/show/pci_avatar-massive_1200x630.webp",
      width: 1200,
      height: 630,
      purpose: "social",
      type: "image/webp",
      alt: "image description for accesibility and bots",
    });
    expect(feed.podroll.map((r) => r.feed_guid)).toEqual(["917393e3-1b1e-5cef-ace4-edaa54e1f810", "396d9ae0-da7e-5557-b894-b606231fa3ea"]);
    expect(feed.publisher).toMatchObject({ feed_guid: "000000a0-aaa5-bbbf-b765-6333d449661a", medium: "publisher" });
    expect(feed.live_items[0]).toMatchObject({ status: "live", start: "2021-09-26T13:30:00.000Z", title: "Podcasting 2.0 Live Show" });
    expect(feed.live_items[0].content_links.map((l) => l.text)).toEqual(["YouTube!", "Twitch!"]);
  });

  test("reads the item Podcasting 2.0 tags of the official example", () => {
    const ep = load("podcast_namespace_official_example.xml").episodes[2];
    expect(ep).toMatchObject({
      guid: "https://example.com/ep0001",
      title: "Episode 1 - The Past",
      enclosure_length: 43111403,
      transcripts: [{ url: "https://example.com/ep1/transcript.txt", type: "text/plain", language: null, rel: null }],
      chapters: { url: "https://example.com/ep1_chapters.json", type: "application/json" },
      soundbites: [{ start_time: 29.32, duration: 34, title: null }],
      podcast_season: { number: 1, name: "Podcasting 2.0" },
      podcast_episode: { number: 1, display: null },
    });
    expect(ep.persons).toEqual([
      { name: "Adam Curry", role: "host", group: "cast", img: "http://example.com/images/adamcurry.jpg", href: "http://blog.curry.com/" },
      { name: "Dave Jones", role: "guest", group: "cast", img: "https://example.com/images/davejones.jpg", href: "https://www.imdb.com/name/nm0427852888/" },
      { name: "Jebick Morton", role: "cover art designer", group: "visuals", img: null, href: "https://example.com/artist/jebickmorton" },
    ]);
    expect(ep.alternate_enclosures.map((a) => [a.type, a.bitrate, a.title, a.default, a.sources.length])).toEqual([
      ["audio/mpeg", 128000, "Standard", true, 2],
      ["audio/opus", 96000, "High quality", false, 2],
      ["audio/aac", 160000, "High quality AAC", false, 2],
      ["audio/opus", 16000, "Low bandwidth", false, 2],
    ]);
  });

  test("reads video alternate enclosures with sources (podverse)", () => {
    const ep = load("podverse_test_feed_p20_video_alternateEnclosure.xml").episodes[0];
    expect(ep.alternate_enclosures).toHaveLength(7);
    expect(ep.alternate_enclosures[0]).toMatchObject({ type: "video/mp4", length: 55298678, height: 1080, language: "en", default: true });
    expect(ep.alternate_enclosures[0].sources[1]).toEqual({
      uri: "https://noagendatube.com/lazy-static/torrents/0f6507ea-8d5f-4264-b2ac-9b839f720d9b-1080.torrent",
      content_type: "application/x-bittorrent",
    });
  });

  test("reads value blocks with custom keys and persons with groups (S.O.M.)", () => {
    const feed = load("som_p20_value_person.xml");
    expect(feed.values[0].recipients[0]).toEqual({
      name: "Jake Hider",
      type: "node",
      address: "030a58b8653d32b99200a2334cfe913e51dc7d155aa0116c176657a4f1722677a3",
      split: 95,
      fee: false,
      custom_key: "696969",
      custom_value: "DpG3zzMtEjPCzRiHZ5qu",
    });
    expect(feed.persons.map((p) => [p.name, p.role, p.group])).toEqual([
      ["Jake Hider", "guitar", "band"],
      ["SLIEK Media", "content manager", "administration"],
    ]);
    expect(feed.images[0].width).toBe(2500);
  });

  test("reads the pc20 feed: locked, value, transcripts and chapters on its items", () => {
    const feed = load("podcasting20_pc20rss_56items_p20tags.xml");
    expect(feed).toMatchObject({ podcast_guid: "917393e3-1b1e-5cef-ace4-edaa54e1f810", locked: true, locked_owner: "adam@curry.com" });
    const ep = feed.episodes[0];
    expect(ep.title).toBe("Episode 57: Rebel Rubes");
    expect(ep.transcripts).toEqual([{ url: "https://mp3s.nashownotes.com/PC20-57-Captions.srt", type: "application/srt", language: null, rel: null }]);
    expect(ep.chapters?.type).toBe("application/json");
    expect(ep.values[0].recipients).toHaveLength(4);
    expect(ep.persons).toHaveLength(3);
  });

  test("reads funding outside the channel and several transcripts (antennapod cases)", () => {
    expect(load("antennapod_p20_multiple_funding.xml").funding).toEqual([
      { url: "https://example.com/funding1", text: "Text 1" },
      { url: "https://example.com/funding2", text: "Text 2" },
      { url: "https://example.com/funding3", text: "" },
    ]);
    expect(load("antennapod_p20_transcript.xml").episodes[0].transcripts.map((t) => t.type)).toEqual(["application/json", "application/srt"]);
  });

  test("reads a publisher feed's medium", () => {
    expect(load("pc20_publisher_medium_no_items.xml")).toMatchObject({ medium: "publisher", podcast_guid: "003af0a0-6a45-55bf-b765-68e3d349551a" });
  });

  test("keeps CDATA HTML as is and prefers content:encoded", () => {
    const feed = load("launched_36items_cdata_html.xml");
    // One episode of this feed really has empty bodies (description/content:encoded/itunes:summary).
    for (const ep of feed.episodes) expect(ep.description ?? "").not.toMatch(/<!\[CDATA\[/);
    expect(feed.episodes.some((ep) => /<p>|<a /.test(ep.description ?? ""))).toBe(true);
  });
});

describe("feed parser: real-world oddities (handmade fixtures)", () => {
  const feed = () => load("handmade_entities_bom_explicit_6items.xml");

  test("decodes undeclared HTML entities after a BOM and leading whitespace, keeping unknown ones", () => {
    expect(feed().title).toBe("Café & Crème\u00a0Show … &bogus; — ☺");
    expect(feed().author).toBe('Jeanne "JJ" Dupont');
    expect(feed().description).toBe("<p>Show <b>notes</b> &amp; more</p>");
    expect(feed().self_url).toBe("https://example.test/feed.xml?a=1&b=2");
  });

  test("reads explicit in every spelling and falls back to the feed's", () => {
    expect(feed().explicit).toBe(true);
    expect(feed().episodes.map((e) => e.explicit)).toEqual([true, false, true, false, false, true]);
  });

  test("reads durations, dates, descriptions, guids and images with their fallbacks", () => {
    const eps = feed().episodes;
    expect(eps.map((e) => e.duration)).toEqual([3600, 3570, 3723, 91, null, null]);
    expect(eps.map((e) => e.pub_date)).toEqual(["2003-06-10T04:00:00.000Z", "2014-03-04T09:30:00.000Z", "2014-03-04T00:00:00.000Z", null, null, null]);
    expect(eps.map((e) => e.description)).toEqual(["plain <b>escaped</b> text", "only a summary", "<p>rich</p>", null, null, null]);
    expect(eps.map((e) => e.guid)).toEqual(["ep-1", "https://example.test/2.mp3", "ep-3", "https://example.test/4Four", "ep-5", "ep-6"]);
    expect(eps[0]).toMatchObject({ enclosure_url: "https://example.test/1.mp3?x=1&y=2", enclosure_length: 12345 });
    expect(eps[1].enclosure_length).toBe(0);
    expect(eps[1].image).toBe("https://example.test/2.png");
    expect(eps[0].image).toBe("https://example.test/channel.png");
    expect(feed().last_build_date).toBe("2024-06-03T08:00:00.000Z");
  });

  test("reads Podcasting 2.0 tags under any prefix bound to the namespace", () => {
    expect(feed()).toMatchObject({
      podcast_guid: "8fe4a2a4-0000-5000-8000-000000000001",
      medium: "podcast",
      locked: true,
      funding: [{ url: "https://example.test/tip", text: "Tip & support" }],
      itunes_type: "serial",
      categories: ["Arts", "Food", "Leisure", "Hobbies"],
    });
    expect(feed().episodes[4].transcripts[0]).toEqual({ url: "https://example.test/5.vtt", type: "text/vtt", language: "fr", rel: "captions" });
    expect(feed().episodes[4].persons[0]).toMatchObject({ name: "Pierre", role: "guest", group: "cast" });
  });

  test("decodes wrongly declared encodings", () => {
    expect(load("handmade_declared_latin1_but_utf8_1item.xml").title).toBe("Café Müller");
    expect(load("handmade_declared_utf8_but_latin1_1item.xml").title).toBe("Café Müller");
    expect(load("handmade_declared_utf8_but_latin1_1item.xml").episodes[0].title).toBe("Épisode un");
  });

  test("reads Atom 1.0", () => {
    const atom = load("handmade_atom_2entries.xml");
    expect(atom).toMatchObject({
      format: "atom",
      title: "Atom Cast",
      description: "An Atom podcast",
      link: "https://example.test/atom",
      author: "Ann Atom",
      image: "https://example.test/logo.png",
    });
    expect(atom.episodes[0]).toMatchObject({
      guid: "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a",
      title: "Entry & one",
      description: "<p>Long</p>",
      pub_date: "2024-04-30T06:00:00.000Z",
      enclosure_url: "https://example.test/atom/1.mp3",
      enclosure_length: 2048,
      duration: 600,
    });
    expect(atom.episodes[1]).toMatchObject({ pub_date: "2024-05-02T08:00:00.000Z", enclosure_url: null });
    expect(atom.episodes[1].description).toContain("<p>XHTML</p>");
  });

  test("decodes a truly Latin-1 feed declared as such, and UTF-16 with a BOM", () => {
    const latin1 = Buffer.from(
      '<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Gr\u00fc\u00dfe</title></channel></rss>',
      "latin1",
    );
    expect(parseFeed(latin1).title).toBe("Grüße");
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>Ωmega</title></channel></rss>', "utf16le"),
    ]);
    expect(parseFeed(utf16).title).toBe("Ωmega");
  });
});

describe("feed parser: not a feed", () => {
  const good = fs.readFileSync(path.join(DIR, "minimal_itunes_3items.xml"), "utf8");

  test.each([
    ["empty input", "", /empty/],
    ["whitespace only", "  \n\t ", /empty/],
    ["an empty Buffer", Buffer.alloc(0), /empty/],
    ["JSON", '{"items": []}', /JSON/],
    ["plain text", "Service Unavailable", /not XML/],
    ["an HTML page", "<!DOCTYPE html><html><head><title>x</title></head><body><p>Hi</p></body></html>", /HTML|malformed/],
    ["an unrelated XML document", '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"></svg>', /neither RSS nor Atom/],
    ["RSS without a channel", '<rss version="2.0"></rss>', /without <channel>/],
    ["a truncated feed", good.slice(0, Math.floor(good.length / 2)), /truncated|malformed/],
    ["a feed cut inside a tag", good.slice(0, good.indexOf("<item>") + 3), /truncated|malformed/],
    ["an unclosed CDATA", "<rss><channel><title><![CDATA[x</title></channel></rss>", /malformed/],
  ])("rejects %s with FeedParseError", (_label, input, reason) => {
    expectNotAFeed(input, reason);
  });

  test("never throws anything but FeedParseError on damaged feeds", () => {
    for (let cut = 1; cut < good.length; cut += 97) {
      try {
        parseFeed(good.slice(0, cut) + "<garbage attr='1' & </></>" + good.slice(cut + 13));
      } catch (err) {
        expect(err).toBeInstanceOf(FeedParseError);
      }
    }
  });
});

describe("feed parser: value helpers", () => {
  test("parses explicit spellings", () => {
    for (const v of ["yes", "Yes", "TRUE", "true", "explicit", "Explicit"]) expect(parseExplicit(v)).toBe(true);
    for (const v of ["no", "No", "FALSE", "false", "clean", "Clean", "", "maybe"]) expect(parseExplicit(v)).toBe(false);
  });

  test("parses durations", () => {
    expect(parseDuration("3600")).toBe(3600);
    expect(parseDuration("59:30")).toBe(3570);
    expect(parseDuration("1:02:03")).toBe(3723);
    expect(parseDuration("01:02:03.6")).toBe(3724);
    expect(parseDuration(" 90.4 ")).toBe(90);
    expect(parseDuration("")).toBeNull();
    expect(parseDuration("1:2:3:4")).toBeNull();
    expect(parseDuration("soon")).toBeNull();
  });

  test("parses real-world dates", () => {
    expect(parseDate("Tue, 10 Jun 2003 04:00:00 GMT")).toBe("2003-06-10T04:00:00.000Z");
    expect(parseDate("Mon, 10 Jun 2003 04:00:00 +0000")).toBe("2003-06-10T04:00:00.000Z"); // wrong weekday
    expect(parseDate("Tue, 10 Jun 2003 04:00:00 CEST")).toBe("2003-06-10T02:00:00.000Z");
    expect(parseDate("Tuesday, 10 June 2003 04:00:00 PDT")).toBe("2003-06-10T11:00:00.000Z");
    expect(parseDate("Di, 10 Dez 2003 04:00:00 +0100")).toBe("2003-12-10T03:00:00.000Z");
    expect(parseDate("2003-06-10T04:00:00+02:00")).toBe("2003-06-10T02:00:00.000Z");
    expect(parseDate("10.06.2003")).toBe("2003-06-10T00:00:00.000Z");
    expect(parseDate("garbage 12")).toBeNull();
    expect(parseDate("")).toBeNull();
  });

  test("reads a date without a zone as UTC, whatever the server's own zone", () => {
    const saved = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(parseDate("2024-03-05 20:00:00")).toBe("2024-03-05T20:00:00.000Z");
      expect(parseDate("2024-03-05T20:00:00")).toBe("2024-03-05T20:00:00.000Z");
      expect(parseDate("Tue, 05 Mar 2024 20:00")).toBe("2024-03-05T20:00:00.000Z");
      expect(parseDate("05.03.2024 20:00")).toBe("2024-03-05T20:00:00.000Z");
      expect(parseDate("2024-03-05T20:00:00+01:00")).toBe("2024-03-05T19:00:00.000Z");
      expect(parseDate("Tue, 5 Mar 2024 8:00:00 PST")).toBe("2024-03-05T16:00:00.000Z");
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  test("decodes entities, leaving unknown and invalid ones as text", () => {
    expect(decodeEntities("a &amp; b &lt;p&gt; &nbsp;&eacute;&#233;&#xE9; &unknown; &#xD800; & ;")).toBe("a & b <p> \u00a0ééé &unknown; &#xD800; & ;");
    expect(decodeEntities("&amp;nbsp;")).toBe("&nbsp;");
  });

  test("believes the bytes over a wrong declaration", () => {
    expect(decodeBytes(Buffer.from('<?xml version="1.0" encoding="iso-8859-1"?><a>é</a>', "utf8"))).toContain("<a>é</a>");
    expect(decodeBytes(Buffer.from('<?xml version="1.0" encoding="utf-8"?><a>é</a>', "latin1"))).toContain("<a>é</a>");
    expect(decodeBytes(Buffer.from("<a>é</a>", "latin1"), "iso-8859-2")).toContain("<a>é</a>");
  });
});

describe("Windows-1252 bytes and relative URLs", () => {
  test("smart quotes survive undeclared, declared windows-1252 and declared ISO-8859-1 bytes (Node decodes those labels as Latin-1)", () => {
    const quotes = Buffer.from([0x3c, 0x61, 0x3e, 0x93, 0x48, 0x69, 0x94, 0x20, 0x92, 0x96, 0x85, 0x80, 0x3c, 0x2f, 0x61, 0x3e]); // <a>“Hi” ’–…€</a>
    for (const decl of ["", '<?xml version="1.0" encoding="windows-1252"?>', '<?xml version="1.0" encoding="ISO-8859-1"?>']) {
      expect(decodeBytes(Buffer.concat([Buffer.from(decl), quotes]))).toContain("<a>“Hi” ’–…€</a>");
    }
  });
  test("site-relative enclosure, image and link URLs resolve against the feed's URL; Atom html titles are text", () => {
    const xml = `<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel><title>t</title><link>/</link><itunes:image href="/cover.jpg"/>
      <item><title>a</title><link>ep/1</link><enclosure url="/media/1.mp3" type="audio/mpeg" length="1"/></item>
      <item><title>b</title><enclosure url="//cdn.example.org/2.mp3" type="audio/mpeg" length="1"/></item></channel></rss>`;
    const feed = parseFeed(xml, { baseUrl: "https://example.org/feed/podcast/" });
    expect([feed.link, feed.image]).toEqual(["https://example.org/", "https://example.org/cover.jpg"]);
    expect(feed.episodes.map((e) => [e.enclosure_url, e.link, e.image])).toEqual([
      ["https://example.org/media/1.mp3", "https://example.org/feed/podcast/ep/1", "https://example.org/cover.jpg"],
      ["https://cdn.example.org/2.mp3", null, "https://example.org/cover.jpg"],
    ]);
    const atom = parseFeed(
      `<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &amp;amp; B</title><entry><title type="html">&lt;b&gt;C&lt;/b&gt; &amp;amp; D</title><id>x</id></entry></feed>`,
    );
    expect([atom.title, atom.episodes[0].title]).toEqual(["A & B", "C & D"]);
  });
});
