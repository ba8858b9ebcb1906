/**
 * OPML in and out. Reading takes what real exports contain: outlines nested in folders, type="rss"
 * missing, xmlUrl spelt in any case or given as url, HTML entities undeclared in XML, a BOM. Writing
 * gives OPML 2.0 that this reader (and other podcast apps) read back. Used by the opml service (import,
 * export) and the gpodder service (the simple API's .opml lists).
 */
import { XMLBuilder, XMLParser } from "fast-xml-parser";
import { decodeBytes, decodeEntities } from "./feed-parser/text";

/** One feed found in an OPML document. */
export interface OpmlFeed {
  url: string;
  title: string | null;
}

const reader = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  // Entities are decoded per attribute below: exports use HTML ones (&eacute;) that XML does not declare.
  processEntities: false,
  htmlEntities: false,
  parseAttributeValue: false,
  isArray: (name) => name === "outline",
});

/** Outline types that name a feed; an outline without a type counts when it carries a feed URL. */
const FEED_TYPES = new Set(["rss", "atom", "feed", "podcast", ""]);

function attrOf(node: Record<string, unknown>, ...names: string[]): string | null {
  for (const key of Object.keys(node)) {
    if (typeof node[key] !== "string") continue;
    if (names.includes(key.toLowerCase())) {
      const v = decodeEntities(String(node[key])).trim();
      if (v) return v;
    }
  }
  return null;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * The feeds of an OPML document, in document order, each URL once. Throws on a document that is
 * not OPML (the caller answers 400).
 */
export function parseOpml(input: string | Buffer): OpmlFeed[] {
  const textIn = typeof input === "string" ? input : decodeBytes(input);
  // fast-xml-parser answers any: what is read of it is typed here, and checked below.
  const doc = reader.parse(textIn.replace(/^\uFEFF/, "").trimStart()) as { opml?: unknown; OPML?: unknown } | null | undefined;
  const root = doc?.opml ?? doc?.OPML;
  if (!root || typeof root !== "object") throw new Error("not an OPML document (no <opml> element)");
  const feeds: OpmlFeed[] = [];
  const seen = new Set<string>();
  const walk = (outlines: unknown) => {
    if (!Array.isArray(outlines)) return;
    for (const o of outlines) {
      if (!o || typeof o !== "object") continue;
      const node = o as Record<string, unknown>;
      const type = (attrOf(node, "type") ?? "").toLowerCase();
      const url = attrOf(node, "xmlurl") ?? (FEED_TYPES.has(type) ? attrOf(node, "url") : null);
      if (url && isHttpUrl(url) && !seen.has(url)) {
        seen.add(url);
        feeds.push({ url, title: attrOf(node, "title", "text") });
      }
      walk(node.outline); // folders (and the odd feed with children) nest outlines
    }
  };
  walk((root as { body?: { outline?: unknown } | null }).body?.outline);
  return feeds;
}

const writer = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", format: true, indentBy: "  ", suppressEmptyNode: true });

/** A subscription as exported. */
export interface ExportedFeed {
  title: string;
  feed_url: string;
  website_url: string | null;
}

/** OPML 2.0 of a user's subscriptions. */
export function buildOpml(title: string, feeds: ExportedFeed[], now = new Date()): string {
  const outline = feeds.map((f) => ({
    "@type": "rss",
    "@text": f.title,
    "@title": f.title,
    "@xmlUrl": f.feed_url,
    ...(f.website_url ? { "@htmlUrl": f.website_url } : {}),
  }));
  const body = writer.build({ opml: { "@version": "2.0", head: { title, dateCreated: now.toUTCString() }, body: { outline } } });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}
