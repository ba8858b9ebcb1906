/**
 * The channel of an RSS feed or the feed element of an Atom one, read into a ParsedFeed.
 */
import { parseDate, parseExplicit } from "./text";
import type { ParsedFeed } from "./types";
import { attr, Attrs, authorOf, eachElement, htmlTitle, imageUrl, keywordList, Names, text, textOrNull, XNode } from "./xml";
import { readChannelPodcast20 } from "./podcast20";

/** itunes:category and its nested sub-categories, flattened into one list of names. */
function readCategories(attrs: Attrs, kids: XNode[], names: Names, out: string[]): void {
  const name = attr(attrs, "text");
  if (name && !out.includes(name)) out.push(name);
  eachElement(kids, names, (child, k, a) => {
    if (child === "itunes:category") readCategories(a, k, names, out);
  });
}

export function emptyFeed(format: ParsedFeed["format"], version: string | null): ParsedFeed {
  return {
    format,
    version,
    title: null,
    description: null,
    link: null,
    author: null,
    owner_name: null,
    owner_email: null,
    image: null,
    language: null,
    explicit: false,
    categories: [],
    keywords: [],
    copyright: null,
    generator: null,
    pub_date: null,
    last_build_date: null,
    itunes_type: null,
    itunes_block: false,
    itunes_complete: false,
    new_feed_url: null,
    self_url: null,
    next_url: null,
    podcast_guid: null,
    medium: null,
    locked: null,
    locked_owner: null,
    funding: [],
    persons: [],
    values: [],
    locations: [],
    license: null,
    trailers: [],
    images: [],
    txt: [],
    podroll: [],
    publisher: null,
    blocks: [],
    podping: null,
    chat: null,
    live_items: [],
    episodes: [],
  };
}

/** Reads channel (RSS) or feed (Atom) children into feed, collecting the item/entry children. */
export function readChannel(kids: XNode[], names: Names, feed: ParsedFeed, items: XNode[][]): void {
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
