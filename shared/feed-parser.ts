/**
 * Podcast feed parser: RSS 2.0 / 0.92 / 1.0, Atom 1.0, the iTunes namespace and Podcasting 2.0.
 * Pure (no I/O, no Moleculer): bytes or text in, a plain JSON-serialisable ParsedFeed out, or a
 * FeedParseError for anything that is not a feed.
 *
 * Speed (issue 4 asks for 1.5x rss-parser): fast-xml-parser runs in preserveOrder mode (skips its
 * costly object-compaction pass; we walk the ordered tree once with a switch per tag), with entity
 * processing off (entities are decoded only in the values we keep) and with the HTML bodies and
 * the text leaves as stop nodes (read as raw text, never tokenised).
 */
import { XMLParser } from "fast-xml-parser";
import { decodeBytes, decodeEntities, decodeText, parseDate, parseDuration, parseExplicit, parseIntOrNull, parseNumberOrNull } from "./feed-parser/text";
import type {
  FeedAlternateEnclosure, FeedChat, FeedImage, FeedLiveItem, FeedLocation, FeedPerson, FeedRemoteItem,
  FeedValue, ParsedEpisode, ParsedFeed, ParseFeedOptions,
} from "./feed-parser/types";

export * from "./feed-parser/types";

/** Anything that is not an RSS/Atom feed. The gateway answers it with 400 "not a podcast feed". */
export class FeedParseError extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`not a podcast feed: ${reason}`);
    this.name = "FeedParseError";
    this.reason = reason;
  }
}

/**
 * Elements read as raw text (CDATA and entities decoded by us), never tokenised: the HTML bodies
 * and every leaf whose text we keep, plus common leaves we skip. Saves fast-xml-parser its
 * character-by-character text building; elements with children we need are not listed.
 */
const RAW_TEXT_ELEMENTS = [
  "title", "link", "description", "content:encoded", "summary", "content", "guid", "id", "pubDate", "published",
  "updated", "lastBuildDate", "language", "copyright", "rights", "generator", "managingEditor", "webMaster", "url",
  "logo", "icon", "name", "email", "category", "comments", "dc:creator", "dc:date", "dc:language",
  "itunes:summary", "itunes:subtitle", "itunes:author", "itunes:explicit", "itunes:duration", "itunes:episode",
  "itunes:season", "itunes:episodeType", "itunes:keywords", "itunes:block", "itunes:complete", "itunes:type",
  "itunes:new-feed-url", "itunes:title", "itunes:name", "itunes:email",
  "podcast:guid", "podcast:medium", "podcast:locked", "podcast:funding", "podcast:person", "podcast:location",
  "podcast:license", "podcast:season", "podcast:episode", "podcast:txt", "podcast:block",
  "media:title", "media:description", "media:credit", "media:keywords", "googleplay:description",
  "googleplay:author", "wfw:commentRss", "slash:comments",
];

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  // Drops whitespace-only text between elements. Raw-text elements are not trimmed per segment,
  // so text around CDATA keeps its spaces there.
  trimValues: true,
  cdataPropName: "#cdata",
  // Callbacks get a live matcher instead of a path string built for every text node.
  jPath: false,
  stopNodes: RAW_TEXT_ELEMENTS.map((tag) => `..${tag}`),
});

type Attrs = Record<string, string> | undefined;
/** A node of fast-xml-parser's ordered output: { [tag]: children, ":@"?: attributes }. */
type XNode = Record<string, unknown>;

function tagOf(node: XNode): string {
  for (const key in node) return key; // the tag is always the first key
  return "";
}

function text(kids: XNode[]): string {
  if (kids.length === 1) {
    const only = kids[0];
    const t = only["#text"];
    if (t !== undefined) return decodeText(t as string).trim();
    const c = only["#cdata"];
    return c !== undefined ? cdata(c as XNode[]).trim() : "";
  }
  let out = "";
  for (const node of kids) {
    const t = node["#text"];
    if (t !== undefined) out += decodeText(t as string);
    else if (node["#cdata"] !== undefined) out += cdata(node["#cdata"] as XNode[]);
  }
  return out.trim();
}

function cdata(kids: XNode[]): string {
  return kids.length ? (kids[0]["#text"] as string) : "";
}

function textOrNull(kids: XNode[]): string | null {
  const t = text(kids);
  return t === "" ? null : t;
}

function attr(attrs: Attrs, name: string): string | null {
  const v = attrs?.[name];
  if (v === undefined) return null;
  const t = decodeEntities(v).trim();
  return t === "" ? null : t;
}

function num(s: string | null): number {
  return parseIntOrNull(s) ?? 0;
}

function keywordList(s: string): string[] {
  const out: string[] = [];
  for (const part of s.split(",")) {
    const k = part.trim();
    if (k) out.push(k);
  }
  return out;
}

const KNOWN_NAMESPACES: [RegExp, string][] = [
  [/itunes\.com\/dtds\/podcast-1\.0\.dtd/i, "itunes"],
  [/podcastindex\.org\/namespace\/1\.0|podcastindex-org\/podcast-namespace/i, "podcast"],
  [/purl\.org\/rss\/1\.0\/modules\/content/i, "content"],
  [/w3\.org\/2005\/atom/i, "atom"],
  [/search\.yahoo\.com\/mrss/i, "media"],
  [/purl\.org\/dc\/elements\/1\.1/i, "dc"],
];

/**
 * Maps the prefixes a document binds to known namespace URIs onto our canonical ones
 * ("pod:guid" -> "podcast:guid"). Returns null in the usual case where prefixes are canonical,
 * so tag names are used as they are.
 */
function prefixRemap(...attrSets: Attrs[]): Map<string, string> | null {
  let remap: Map<string, string> | null = null;
  for (const attrs of attrSets) {
    if (!attrs) continue;
    for (const key in attrs) {
      if (!key.startsWith("xmlns:")) continue;
      const prefix = key.slice(6);
      const found = KNOWN_NAMESPACES.find(([re]) => re.test(attrs[key]));
      if (found && found[1] !== prefix) (remap ??= new Map()).set(prefix, found[1]);
    }
  }
  return remap;
}

class Names {
  private readonly cache = new Map<string, string>();
  constructor(private readonly remap: Map<string, string> | null) {}
  canon(tag: string): string {
    if (this.remap === null) return tag;
    let name = this.cache.get(tag);
    if (name === undefined) {
      const colon = tag.indexOf(":");
      const to = colon > 0 ? this.remap.get(tag.slice(0, colon)) : undefined;
      name = to ? to + tag.slice(colon) : tag;
      this.cache.set(tag, name);
    }
    return name;
  }
}

/** Walks the element children of a node: fn(canonical name, children, attributes). */
function eachElement(kids: XNode[], names: Names, fn: (name: string, kids: XNode[], attrs: Attrs) => void): void {
  for (const node of kids) {
    const tag = tagOf(node);
    if (tag.charCodeAt(0) === 35) continue; // "#text" / "#cdata"
    fn(names.canon(tag), node[tag] as XNode[], node[":@"] as Attrs);
  }
}

/** An author element: Atom's <author><name>, else its text (RSS author, dc:creator). */
function authorOf(kids: XNode[], names: Names): string | null {
  let name: string | null = null;
  eachElement(kids, names, (child, ck) => {
    if (child === "name") name ??= textOrNull(ck);
  });
  return name ?? textOrNull(kids);
}

/** Podcasting 2.0 tags valid at channel and item level, collected the same way for both. */
interface Podcast20 {
  persons: FeedPerson[];
  values: FeedValue[];
  locations: FeedLocation[];
  license: ParsedFeed["license"];
  images: FeedImage[];
  txt: ParsedFeed["txt"];
}

function readPodcast20(local: string, kids: XNode[], attrs: Attrs, names: Names, into: Podcast20): boolean {
  switch (local) {
    case "person": {
      const name = text(kids);
      if (name) {
        into.persons.push({
          name,
          role: (attr(attrs, "role") ?? "host").toLowerCase(),
          group: (attr(attrs, "group") ?? "cast").toLowerCase(),
          img: attr(attrs, "img"),
          href: attr(attrs, "href"),
        });
      }
      return true;
    }
    case "value":
      into.values.push(readValue(kids, attrs, names));
      return true;
    case "location": {
      const name = text(kids);
      if (name) {
        into.locations.push({ name, geo: attr(attrs, "geo"), osm: attr(attrs, "osm"), rel: attr(attrs, "rel"), country: attr(attrs, "country") });
      }
      return true;
    }
    case "license": {
      const name = text(kids);
      if (name) into.license = { name, url: attr(attrs, "url") };
      return true;
    }
    case "images":
      for (const candidate of (attr(attrs, "srcset") ?? "").split(",")) {
        const [url, size] = candidate.trim().split(/\s+/);
        if (!url) continue;
        const width = size?.endsWith("w") ? parseIntOrNull(size) : null;
        into.images.push({ url, width, height: null, purpose: null, type: null, alt: null });
      }
      return true;
    case "image": {
      const url = attr(attrs, "href");
      if (url) {
        into.images.push({
          url,
          width: parseIntOrNull(attr(attrs, "width")),
          height: parseIntOrNull(attr(attrs, "height")),
          purpose: attr(attrs, "purpose"),
          type: attr(attrs, "type"),
          alt: attr(attrs, "alt"),
        });
      }
      return true;
    }
    case "txt": {
      const t = text(kids);
      if (t) into.txt.push({ purpose: attr(attrs, "purpose"), text: t });
      return true;
    }
  }
  return false;
}

function readValue(kids: XNode[], attrs: Attrs, names: Names): FeedValue {
  const value: FeedValue = { type: attr(attrs, "type") ?? "", method: attr(attrs, "method") ?? "", suggested: attr(attrs, "suggested"), recipients: [] };
  eachElement(kids, names, (name, _k, a) => {
    if (name !== "podcast:valueRecipient") return;
    value.recipients.push({
      name: attr(a, "name"),
      type: attr(a, "type") ?? "",
      address: attr(a, "address") ?? "",
      split: parseNumberOrNull(attr(a, "split")) ?? 0,
      fee: parseExplicit(attr(a, "fee") ?? ""),
      custom_key: attr(a, "customKey"),
      custom_value: attr(a, "customValue"),
    });
  });
  return value;
}

function readRemoteItem(attrs: Attrs, kids: XNode[]): FeedRemoteItem {
  return {
    feed_guid: attr(attrs, "feedGuid"),
    feed_url: attr(attrs, "feedUrl"),
    item_guid: attr(attrs, "itemGuid"),
    medium: attr(attrs, "medium"),
    title: textOrNull(kids),
  };
}

function readAlternateEnclosure(kids: XNode[], attrs: Attrs, names: Names): FeedAlternateEnclosure {
  const alt: FeedAlternateEnclosure = {
    type: attr(attrs, "type") ?? "",
    length: num(attr(attrs, "length")),
    bitrate: parseNumberOrNull(attr(attrs, "bitrate")),
    height: parseIntOrNull(attr(attrs, "height")),
    language: attr(attrs, "lang") ?? attr(attrs, "language"),
    title: attr(attrs, "title"),
    rel: attr(attrs, "rel"),
    codecs: attr(attrs, "codecs"),
    default: parseExplicit(attr(attrs, "default") ?? ""),
    sources: [],
    integrity: null,
  };
  eachElement(kids, names, (name, _k, a) => {
    if (name === "podcast:source") {
      const uri = attr(a, "uri");
      if (uri) alt.sources.push({ uri, content_type: attr(a, "contentType") });
    } else if (name === "podcast:integrity") {
      alt.integrity = { type: attr(a, "type") ?? "", value: attr(a, "value") ?? "" };
    }
  });
  return alt;
}

/** itunes:category and its nested sub-categories, flattened into one list of names. */
function readCategories(attrs: Attrs, kids: XNode[], names: Names, out: string[]): void {
  const name = attr(attrs, "text");
  if (name && !out.includes(name)) out.push(name);
  eachElement(kids, names, (child, k, a) => {
    if (child === "itunes:category") readCategories(a, k, names, out);
  });
}

function readLiveItem(kids: XNode[], attrs: Attrs, names: Names): FeedLiveItem {
  const live: FeedLiveItem = {
    status: attr(attrs, "status") ?? "",
    start: parseDateOrNull(attr(attrs, "start")),
    end: parseDateOrNull(attr(attrs, "end")),
    title: null,
    guid: null,
    enclosure_url: null,
    enclosure_type: null,
    content_links: [],
  };
  eachElement(kids, names, (name, k, a) => {
    if (name === "title") live.title = textOrNull(k);
    else if (name === "guid") live.guid = textOrNull(k);
    else if (name === "enclosure") {
      live.enclosure_url = attr(a, "url");
      live.enclosure_type = attr(a, "type");
    } else if (name === "podcast:contentLink") {
      const href = attr(a, "href");
      if (href) live.content_links.push({ href, text: text(k) });
    }
  });
  return live;
}

/** An Atom title of type html holds escaped markup ("&amp;amp;" for "&"): keep its text only. */
function htmlTitle(t: string | null, attrs: Attrs): string | null {
  if (t === null || attrs?.type === undefined || (attrs.type !== "html" && attrs.type !== "xhtml")) return t;
  return decodeEntities(t.replace(/<[^>]*>/g, "")).trim() || null;
}

function parseDateOrNull(s: string | null): string | null {
  return s === null ? null : parseDate(s);
}

function imageUrl(kids: XNode[], attrs: Attrs): string | null {
  // itunes:image carries href; some feeds put the URL (or a mangled `href=...">`) in the text.
  return attr(attrs, "href") ?? attr(attrs, "url") ?? /https?:\/\/[^\s"'<>]+/.exec(text(kids))?.[0] ?? null;
}

function emptyFeed(format: ParsedFeed["format"], version: string | null): ParsedFeed {
  return {
    format, version, title: null, description: null, link: null, author: null, owner_name: null, owner_email: null,
    image: null, language: null, explicit: false, categories: [], keywords: [], copyright: null, generator: null,
    pub_date: null, last_build_date: null, itunes_type: null, itunes_block: false, itunes_complete: false,
    new_feed_url: null, self_url: null, next_url: null, podcast_guid: null, medium: null, locked: null,
    locked_owner: null, funding: [], persons: [], values: [], locations: [], license: null, trailers: [], images: [],
    txt: [], podroll: [], publisher: null, blocks: [], podping: null, chat: null, live_items: [], episodes: [],
  };
}

/** Reads channel (RSS) or feed (Atom) children into feed, collecting the item/entry children. */
function readChannel(kids: XNode[], names: Names, feed: ParsedFeed, items: XNode[][]): void {
  let summary: string | null = null;
  let subtitle: string | null = null;
  let channelImage: string | null = null;
  let atomLogo: string | null = null;
  let fallbackAuthor: string | null = null;
  const plainCategories: string[] = [];
  eachElement(kids, names, (name, k, a) => {
    switch (name) {
      case "item":
      case "entry":
        items.push(k);
        return;
      case "title":
        feed.title ??= htmlTitle(textOrNull(k), a);
        return;
      case "description":
        feed.description ??= textOrNull(k);
        return;
      case "subtitle":
      case "itunes:subtitle":
        subtitle ??= textOrNull(k);
        return;
      case "itunes:summary":
        summary ??= textOrNull(k);
        return;
      case "link":
      case "atom:link": {
        const href = attr(a, "href");
        if (href === null) {
          if (name === "link") feed.link ??= textOrNull(k);
          return;
        }
        const rel = attr(a, "rel") ?? "alternate";
        if (rel === "self") feed.self_url ??= href;
        else if (rel === "next") feed.next_url ??= href;
        else if (rel === "alternate" && name === "link") feed.link ??= href;
        return;
      }
      case "language":
      case "dc:language":
        feed.language ??= textOrNull(k);
        return;
      case "copyright":
      case "rights":
        feed.copyright ??= textOrNull(k);
        return;
      case "generator":
        feed.generator ??= textOrNull(k);
        return;
      case "pubDate":
      case "dc:date":
        feed.pub_date ??= parseDate(text(k));
        return;
      case "lastBuildDate":
      case "updated":
        feed.last_build_date ??= parseDate(text(k));
        return;
      case "managingEditor":
      case "dc:creator":
        fallbackAuthor ??= textOrNull(k);
        return;
      case "author":
        fallbackAuthor ??= authorOf(k, names);
        return;
      case "image":
        eachElement(k, names, (child, ck) => {
          if (child === "url") channelImage ??= textOrNull(ck);
        });
        return;
      case "logo":
      case "icon":
        atomLogo ??= textOrNull(k);
        return;
      case "category": {
        const c = attr(a, "term") ?? text(k);
        if (c && !plainCategories.includes(c)) plainCategories.push(c);
        return;
      }
      case "itunes:author":
        feed.author ??= textOrNull(k);
        return;
      case "itunes:owner":
        eachElement(k, names, (child, ck) => {
          if (child === "itunes:email") feed.owner_email ??= textOrNull(ck);
          else if (child === "itunes:name") feed.owner_name ??= textOrNull(ck);
        });
        return;
      case "itunes:image":
        feed.image ??= imageUrl(k, a);
        return;
      case "itunes:explicit":
        feed.explicit = parseExplicit(text(k));
        return;
      case "itunes:category":
        readCategories(a, k, names, feed.categories);
        return;
      case "itunes:keywords":
        // Some publishers write <itunes:keywords text="..."/> like itunes:category.
        feed.keywords.push(...keywordList(text(k) || (attr(a, "text") ?? "")));
        return;
      case "itunes:block":
        feed.itunes_block = parseExplicit(text(k));
        return;
      case "itunes:complete":
        feed.itunes_complete = parseExplicit(text(k));
        return;
      case "itunes:type":
        feed.itunes_type ??= textOrNull(k)?.toLowerCase() ?? null;
        return;
      case "itunes:new-feed-url":
        feed.new_feed_url ??= textOrNull(k);
        return;
    }
    if (name.startsWith("podcast:")) readChannelPodcast20(name.slice(8), k, a, names, feed);
  });
  feed.description ??= summary ?? subtitle;
  feed.author ??= fallbackAuthor;
  feed.image ??= channelImage ?? feed.images[0]?.url ?? atomLogo;
  for (const c of plainCategories) if (!feed.categories.includes(c)) feed.categories.push(c);
}

function readChannelPodcast20(local: string, kids: XNode[], attrs: Attrs, names: Names, feed: ParsedFeed): void {
  if (readPodcast20(local, kids, attrs, names, feed)) return;
  switch (local) {
    case "guid":
      feed.podcast_guid ??= textOrNull(kids);
      return;
    case "medium":
      feed.medium ??= textOrNull(kids)?.toLowerCase() ?? null;
      return;
    case "locked":
      feed.locked = parseExplicit(text(kids));
      feed.locked_owner = attr(attrs, "owner") ?? attr(attrs, "email");
      return;
    case "funding": {
      const url = attr(attrs, "url");
      if (url) feed.funding.push({ url, text: text(kids) });
      return;
    }
    case "trailer": {
      const url = attr(attrs, "url");
      if (url) {
        feed.trailers.push({
          url,
          title: text(kids),
          pub_date: parseDateOrNull(attr(attrs, "pubdate") ?? attr(attrs, "pubDate")),
          length: num(attr(attrs, "length")),
          type: attr(attrs, "type"),
          season: parseIntOrNull(attr(attrs, "season")),
        });
      }
      return;
    }
    case "podroll":
      eachElement(kids, names, (name, k, a) => {
        if (name === "podcast:remoteItem") feed.podroll.push(readRemoteItem(a, k));
      });
      return;
    case "publisher":
      eachElement(kids, names, (name, k, a) => {
        if (name === "podcast:remoteItem") feed.publisher ??= readRemoteItem(a, k);
      });
      return;
    case "block":
      feed.blocks.push({ id: attr(attrs, "id"), blocked: parseExplicit(text(kids)) });
      return;
    case "podping":
      feed.podping = parseExplicit(attr(attrs, "usesPodping") ?? "");
      return;
    case "chat": {
      const server = attr(attrs, "server");
      if (server) feed.chat ??= { server, protocol: attr(attrs, "protocol") ?? "", account_id: attr(attrs, "accountId"), space: attr(attrs, "space") } satisfies FeedChat;
      return;
    }
    case "liveItem":
      feed.live_items.push(readLiveItem(kids, attrs, names));
      return;
  }
}

function readItem(kids: XNode[], names: Names, feed: ParsedFeed): ParsedEpisode {
  const ep: ParsedEpisode = {
    guid: "", title: null, description: null, pub_date: null, enclosure_url: null, enclosure_type: null,
    enclosure_length: 0, duration: null, image: null, link: null, author: null, explicit: feed.explicit,
    episode: null, season: null, episode_type: null, keywords: [], itunes_block: false, transcripts: [],
    chapters: null, soundbites: [], persons: [], values: [], podcast_season: null, podcast_episode: null,
    alternate_enclosures: [], locations: [], license: null, images: [], txt: [], social_interacts: [],
  };
  let guid: string | null = null;
  let content: string | null = null;
  let description: string | null = null;
  let summary: string | null = null;
  let mediaImage: string | null = null;
  let fallbackAuthor: string | null = null;
  let hasEnclosure = false;
  eachElement(kids, names, (name, k, a) => {
    switch (name) {
      case "title":
        ep.title ??= htmlTitle(textOrNull(k), a);
        return;
      case "guid":
      case "id":
        guid ??= textOrNull(k);
        return;
      case "content:encoded":
      case "content":
        content ??= textOrNull(k);
        return;
      case "description":
      case "summary":
        description ??= textOrNull(k);
        return;
      case "itunes:summary":
        summary ??= textOrNull(k);
        return;
      case "link": {
        const href = attr(a, "href");
        if (href === null) {
          ep.link ??= textOrNull(k);
          return;
        }
        const rel = attr(a, "rel") ?? "alternate";
        if (rel === "enclosure" && !hasEnclosure) {
          hasEnclosure = true;
          ep.enclosure_url = href;
          ep.enclosure_type = attr(a, "type");
          ep.enclosure_length = num(attr(a, "length"));
        } else if (rel === "alternate") ep.link ??= href;
        return;
      }
      case "pubDate":
      case "published":
      case "dc:date":
        ep.pub_date ??= parseDate(text(k));
        return;
      case "updated":
        // Atom: updated only stands in when there is no published date.
        if (ep.pub_date === null) ep.pub_date = parseDate(text(k));
        return;
      case "enclosure":
        if (!hasEnclosure) {
          const url = attr(a, "url");
          if (url === null) return;
          hasEnclosure = true;
          ep.enclosure_url = url;
          ep.enclosure_type = attr(a, "type");
          ep.enclosure_length = num(attr(a, "length"));
        }
        return;
      case "media:content":
        // Some feeds carry the media only here: use it when there is no enclosure.
        if (ep.enclosure_url === null) {
          ep.enclosure_url = attr(a, "url");
          ep.enclosure_type = attr(a, "type");
          ep.enclosure_length = num(attr(a, "fileSize"));
        }
        return;
      case "media:thumbnail":
        mediaImage ??= attr(a, "url");
        return;
      case "itunes:image":
        ep.image ??= imageUrl(k, a);
        return;
      case "itunes:duration":
        ep.duration ??= parseDuration(text(k));
        return;
      case "itunes:explicit": {
        const v = text(k);
        if (v) ep.explicit = parseExplicit(v);
        return;
      }
      case "itunes:episode":
        ep.episode ??= parseIntOrNull(text(k));
        return;
      case "itunes:season":
        ep.season ??= parseIntOrNull(text(k));
        return;
      case "itunes:episodeType":
        ep.episode_type ??= textOrNull(k)?.toLowerCase() ?? null;
        return;
      case "itunes:author":
        ep.author ??= textOrNull(k);
        return;
      case "author":
      case "dc:creator":
        fallbackAuthor ??= authorOf(k, names);
        return;
      case "itunes:keywords":
        ep.keywords.push(...keywordList(text(k) || (attr(a, "text") ?? "")));
        return;
      case "itunes:block":
        ep.itunes_block = parseExplicit(text(k));
        return;
    }
    if (name.startsWith("podcast:")) readItemPodcast20(name.slice(8), k, a, names, ep);
  });
  ep.description = content ?? description ?? summary;
  ep.image ??= mediaImage ?? ep.images[0]?.url ?? feed.image;
  ep.author ??= fallbackAuthor;
  // A stable identity is needed to match episodes across refreshes.
  ep.guid = guid ?? ep.enclosure_url ?? `${ep.link ?? ""}${ep.title ?? ""}`;
  return ep;
}

function readItemPodcast20(local: string, kids: XNode[], attrs: Attrs, names: Names, ep: ParsedEpisode): void {
  if (readPodcast20(local, kids, attrs, names, ep)) return;
  switch (local) {
    case "transcript": {
      const url = attr(attrs, "url");
      if (url) ep.transcripts.push({ url, type: attr(attrs, "type") ?? "", language: attr(attrs, "language"), rel: attr(attrs, "rel") });
      return;
    }
    case "chapters": {
      const url = attr(attrs, "url");
      if (url) ep.chapters ??= { url, type: attr(attrs, "type") ?? "" };
      return;
    }
    case "soundbite": {
      const start = parseNumberOrNull(attr(attrs, "startTime"));
      const duration = parseNumberOrNull(attr(attrs, "duration"));
      if (start !== null && duration !== null) ep.soundbites.push({ start_time: start, duration, title: textOrNull(kids) });
      return;
    }
    case "season": {
      const n = parseNumberOrNull(text(kids));
      if (n !== null) ep.podcast_season = { number: n, name: attr(attrs, "name") };
      return;
    }
    case "episode": {
      const n = parseNumberOrNull(text(kids));
      if (n !== null) ep.podcast_episode = { number: n, display: attr(attrs, "display") };
      return;
    }
    case "alternateEnclosure":
      ep.alternate_enclosures.push(readAlternateEnclosure(kids, attrs, names));
      return;
    case "socialInteract": {
      const uri = attr(attrs, "uri");
      if (uri) {
        ep.social_interacts.push({
          uri,
          protocol: attr(attrs, "protocol") ?? "",
          account_id: attr(attrs, "accountId"),
          account_url: attr(attrs, "accountUrl"),
          priority: parseIntOrNull(attr(attrs, "priority")),
        });
      }
      return;
    }
  }
}

function parseXml(xml: string): XNode[] {
  try {
    return parser.parse(xml) as XNode[];
  } catch (err) {
    throw new FeedParseError(`malformed XML (${(err as Error).message})`);
  }
}

function firstContentIndex(xml: string): number {
  for (let i = 0; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    // BOM and whitespace may precede the XML declaration in real feeds.
    if (c !== 0xfeff && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
  }
  return -1;
}

function buildFeed(doc: XNode[], xml: string): ParsedFeed {
  let rootTag = "";
  let root: XNode | undefined;
  for (const node of doc) {
    const tag = tagOf(node);
    const c = tag.charCodeAt(0);
    if (c !== 35 && c !== 63 && c !== 33) { // "#", "?", "!"
      rootTag = tag;
      root = node;
      break;
    }
  }
  if (!root) throw new FeedParseError("no root element");
  // fast-xml-parser accepts a document cut short; a feed must end with its root's end tag.
  if (xml.lastIndexOf(`</${rootTag}`) === -1) throw new FeedParseError(`truncated document (no </${rootTag}>)`);

  const rootKids = root[rootTag] as XNode[];
  const rootAttrs = root[":@"] as Attrs;
  const local = rootTag.slice(rootTag.indexOf(":") + 1).toLowerCase();
  const items: XNode[][] = [];
  let feed: ParsedFeed;

  if (local === "rss" || local === "rdf") {
    let channel: XNode | undefined;
    for (const node of rootKids) if (tagOf(node) === "channel") { channel = node; break; }
    if (!channel) throw new FeedParseError(`<${rootTag}> without <channel>`);
    // RSS 1.0 keeps items beside the channel; some RSS 2.0 feeds put items or channel tags
    // (podcast:funding...) there too: read them as channel content, after the channel's own.
    const channelKids = (channel.channel as XNode[]).concat(rootKids.filter((node) => node !== channel));
    const names = new Names(prefixRemap(rootAttrs, channel[":@"] as Attrs));
    feed = emptyFeed(local === "rss" ? "rss" : "rdf", local === "rss" ? attr(rootAttrs, "version") : "1.0");
    readChannel(channelKids, names, feed, items);
    for (const item of items) feed.episodes.push(readItem(item, names, feed));
  } else if (local === "feed") {
    const names = new Names(prefixRemap(rootAttrs));
    feed = emptyFeed("atom", "1.0");
    readChannel(rootKids, names, feed, items);
    for (const item of items) feed.episodes.push(readItem(item, names, feed));
  } else {
    throw new FeedParseError(local === "html" ? "an HTML page" : `root element <${rootTag}> is neither RSS nor Atom`);
  }
  return feed;
}

const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:/i;

function resolve(url: string | null, base: string): string | null {
  if (url === null || ABSOLUTE_URL.test(url)) return url;
  try {
    return new URL(url, base).href;
  } catch {
    return url;
  }
}

/** Hand-written feeds (WordPress, Jekyll) use site-relative enclosure, image and link URLs. */
function resolveUrls(feed: ParsedFeed, base: string): void {
  feed.image = resolve(feed.image, base);
  feed.link = resolve(feed.link, base);
  for (const ep of feed.episodes) {
    ep.enclosure_url = resolve(ep.enclosure_url, base);
    ep.image = resolve(ep.image, base);
    ep.link = resolve(ep.link, base);
  }
}

/**
 * Parses a podcast feed. A Buffer is decoded by BOM / declared charset with fallbacks for
 * mislabelled feeds; a string is taken as already decoded. Throws FeedParseError, and only that,
 * when the input is not an RSS/Atom feed.
 */
export function parseFeed(input: Buffer | Uint8Array | string, opts: ParseFeedOptions = {}): ParsedFeed {
  if (typeof input !== "string" && !(input instanceof Uint8Array)) throw new FeedParseError("input is neither text nor bytes");
  let xml = typeof input === "string" ? input : decodeBytes(input, opts.charset);
  const start = firstContentIndex(xml);
  if (start === -1) throw new FeedParseError("empty document");
  if (xml.charCodeAt(start) !== 60) { // "<"
    const c = xml[start];
    throw new FeedParseError(c === "{" || c === "[" ? "JSON, not XML" : "not XML");
  }
  if (start > 0) xml = xml.slice(start);
  const doc = parseXml(xml);
  try {
    const feed = buildFeed(doc, xml);
    if (opts.baseUrl) resolveUrls(feed, opts.baseUrl);
    return feed;
  } catch (err) {
    if (err instanceof FeedParseError) throw err;
    // A document shaped too oddly for the mapping is still bad input, not a server error.
    throw new FeedParseError(`unreadable feed structure (${(err as Error).message})`);
  }
}
