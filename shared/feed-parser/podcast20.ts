/**
 * Podcasting 2.0 (podcastindex.org namespace): the tags shared by channel and item, and those of each.
 */
import { parseExplicit, parseIntOrNull, parseNumberOrNull } from "./text";
import type {
  FeedAlternateEnclosure,
  FeedChat,
  FeedImage,
  FeedLiveItem,
  FeedLocation,
  FeedPerson,
  FeedRemoteItem,
  FeedValue,
  ParsedEpisode,
  ParsedFeed,
} from "./types";
import { attr, Attrs, eachElement, Names, num, parseDateOrNull, text, textOrNull, XNode } from "./xml";

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

export function readChannelPodcast20(local: string, kids: XNode[], attrs: Attrs, names: Names, feed: ParsedFeed): void {
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
      if (server)
        feed.chat ??= { server, protocol: attr(attrs, "protocol") ?? "", account_id: attr(attrs, "accountId"), space: attr(attrs, "space") } satisfies FeedChat;
      return;
    }
    case "liveItem":
      feed.live_items.push(readLiveItem(kids, attrs, names));
      return;
  }
}

export function readItemPodcast20(local: string, kids: XNode[], attrs: Attrs, names: Names, ep: ParsedEpisode): void {
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
