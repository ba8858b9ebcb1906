/**
 * An RSS item or an Atom entry, read into a ParsedEpisode.
 */
import { parseDate, parseDuration, parseExplicit, parseIntOrNull } from "./text";
import type { ParsedEpisode, ParsedFeed } from "./types";
import { attr, authorOf, eachElement, htmlTitle, imageUrl, keywordList, Names, num, text, textOrNull, XNode } from "./xml";
import { readItemPodcast20 } from "./podcast20";

/** An episode with nothing read yet (also the base of episodes built from other sources than XML). */
export function emptyEpisode(explicit: boolean): ParsedEpisode {
  return {
    guid: "",
    title: null,
    description: null,
    pub_date: null,
    enclosure_url: null,
    enclosure_type: null,
    enclosure_length: 0,
    duration: null,
    image: null,
    link: null,
    author: null,
    explicit,
    episode: null,
    season: null,
    episode_type: null,
    keywords: [],
    itunes_block: false,
    transcripts: [],
    chapters: null,
    soundbites: [],
    persons: [],
    values: [],
    podcast_season: null,
    podcast_episode: null,
    alternate_enclosures: [],
    locations: [],
    license: null,
    images: [],
    txt: [],
    social_interacts: [],
  };
}

export function readItem(kids: XNode[], names: Names, feed: ParsedFeed): ParsedEpisode {
  const ep = emptyEpisode(feed.explicit);
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
