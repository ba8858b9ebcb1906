/**
 * The user's feed as RSS 2.0 with the itunes namespace, written with fast-xml-parser's builder (it
 * escapes every text and attribute), so that any podcast app can subscribe to it.
 */
import { XMLBuilder } from "fast-xml-parser";
import type { EpisodeMediaItem } from "../../shared/contracts/episodes";

export interface FeedChannel {
  title: string;
  link: string;
  description: string;
  image: string | null;
  author: string;
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", format: true, indentBy: "  ", suppressEmptyNode: true });

function hms(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, "0")).join(":");
}

/** RSS 2.0 of these episodes; `enclosure` gives each its media URL (the server's stream route). */
export function buildRss(channel: FeedChannel, items: EpisodeMediaItem[], enclosure: (item: EpisodeMediaItem) => string, serviceName: string): string {
  const item = items.map((e) => ({
    title: e.episodetitle || "Untitled episode",
    description: e.episodedescription ?? "",
    guid: { "@isPermaLink": "false", "#text": `${serviceName}-episode-${e.episodeid}` },
    ...(e.episodepubdate ? { pubDate: new Date(e.episodepubdate).toUTCString() } : {}),
    enclosure: { "@url": enclosure(e), "@length": String(e.enclosure_length || 0), "@type": e.enclosure_type || "audio/mpeg" },
    "itunes:author": e.podcastname,
    ...(e.episodeduration ? { "itunes:duration": hms(e.episodeduration) } : {}),
    ...(e.episodeartwork ? { "itunes:image": { "@href": e.episodeartwork } } : {}),
  }));
  const rss = {
    "@version": "2.0",
    "@xmlns:itunes": "http://www.itunes.com/dtds/podcast-1.0.dtd",
    channel: {
      title: channel.title,
      link: channel.link,
      description: channel.description,
      generator: serviceName,
      lastBuildDate: new Date().toUTCString(),
      "itunes:author": channel.author,
      ...(channel.image ? { image: { url: channel.image, title: channel.title, link: channel.link }, "itunes:image": { "@href": channel.image } } : {}),
      "itunes:explicit": "false",
      item,
    },
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ rss })}`;
}
