/**
 * The XML layer of the feed parser: fast-xml-parser's ordered tree, namespace prefixes mapped to
 * canonical ones, and the small readers of text, attributes and common elements.
 */
import { XMLParser } from "fast-xml-parser";
import { decodeEntities, decodeText, parseDate, parseIntOrNull } from "./text";

/**
 * Elements read as raw text (CDATA and entities decoded by us), never tokenised: the HTML bodies
 * and every leaf whose text we keep, plus common leaves we skip. Saves fast-xml-parser its
 * character-by-character text building; elements with children we need are not listed.
 */
const RAW_TEXT_ELEMENTS = [
  "title",
  "link",
  "description",
  "content:encoded",
  "summary",
  "content",
  "guid",
  "id",
  "pubDate",
  "published",
  "updated",
  "lastBuildDate",
  "language",
  "copyright",
  "rights",
  "generator",
  "managingEditor",
  "webMaster",
  "url",
  "logo",
  "icon",
  "name",
  "email",
  "category",
  "comments",
  "dc:creator",
  "dc:date",
  "dc:language",
  "itunes:summary",
  "itunes:subtitle",
  "itunes:author",
  "itunes:explicit",
  "itunes:duration",
  "itunes:episode",
  "itunes:season",
  "itunes:episodeType",
  "itunes:keywords",
  "itunes:block",
  "itunes:complete",
  "itunes:type",
  "itunes:new-feed-url",
  "itunes:title",
  "itunes:name",
  "itunes:email",
  "podcast:guid",
  "podcast:medium",
  "podcast:locked",
  "podcast:funding",
  "podcast:person",
  "podcast:location",
  "podcast:license",
  "podcast:season",
  "podcast:episode",
  "podcast:txt",
  "podcast:block",
  "media:title",
  "media:description",
  "media:credit",
  "media:keywords",
  "googleplay:description",
  "googleplay:author",
  "wfw:commentRss",
  "slash:comments",
];

export const parser = new XMLParser({
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

export type Attrs = Record<string, string> | undefined;
/** A node of fast-xml-parser's ordered output: { [tag]: children, ":@"?: attributes }. */
export type XNode = Record<string, unknown>;

export function tagOf(node: XNode): string {
  for (const key in node) return key; // the tag is always the first key
  return "";
}

export function text(kids: XNode[]): string {
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

export function textOrNull(kids: XNode[]): string | null {
  const t = text(kids);
  return t === "" ? null : t;
}

export function attr(attrs: Attrs, name: string): string | null {
  const v = attrs?.[name];
  if (v === undefined) return null;
  const t = decodeEntities(v).trim();
  return t === "" ? null : t;
}

export function num(s: string | null): number {
  return parseIntOrNull(s) ?? 0;
}

export function keywordList(s: string): string[] {
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
export function prefixRemap(...attrSets: Attrs[]): Map<string, string> | null {
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

export class Names {
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
export function eachElement(kids: XNode[], names: Names, fn: (name: string, kids: XNode[], attrs: Attrs) => void): void {
  for (const node of kids) {
    const tag = tagOf(node);
    if (tag.charCodeAt(0) === 35) continue; // "#text" / "#cdata"
    fn(names.canon(tag), node[tag] as XNode[], node[":@"] as Attrs);
  }
}

/** An author element: Atom's <author><name>, else its text (RSS author, dc:creator). */
export function authorOf(kids: XNode[], names: Names): string | null {
  let name: string | null = null;
  eachElement(kids, names, (child, ck) => {
    if (child === "name") name ??= textOrNull(ck);
  });
  return name ?? textOrNull(kids);
}

/** An Atom title of type html holds escaped markup ("&amp;amp;" for "&"): keep its text only. */
export function htmlTitle(t: string | null, attrs: Attrs): string | null {
  if (t === null || attrs?.type === undefined || (attrs.type !== "html" && attrs.type !== "xhtml")) return t;
  return decodeEntities(t.replace(/<[^>]*>/g, "")).trim() || null;
}

export function parseDateOrNull(s: string | null): string | null {
  return s === null ? null : parseDate(s);
}

export function imageUrl(kids: XNode[], attrs: Attrs): string | null {
  // itunes:image carries href; some feeds put the URL (or a mangled `href=...">`) in the text.
  return attr(attrs, "href") ?? attr(attrs, "url") ?? /https?:\/\/[^\s"'<>]+/.exec(text(kids))?.[0] ?? null;
}
