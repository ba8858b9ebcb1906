/**
 * The directory and store providers of the search service: signed JSON requests through the server's
 * one outbound client (shared/provider.ts). Provider base URLs are operator config, not user input.
 */
import crypto from "crypto";
import { config } from "../../shared/config";
import { InternalServerError, NotFoundError } from "../../shared/errors";
import { fetchProviderJson } from "../../shared/provider";

/** The documented request signing: X-Auth-Key, X-Auth-Date (unix seconds), Authorization = sha1(key + secret + date). */
export function signDirectory(key: string, secret: string, now = Date.now()): Record<string, string> {
  const date = String(Math.floor(now / 1000));
  const authorization = crypto.createHash("sha1").update(key + secret + date).digest("hex");
  return { "X-Auth-Key": key, "X-Auth-Date": date, Authorization: authorization };
}

/** A provider's JSON (the directory's and the store's): any, as they publish no types; each field is read defensively. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the directory's and the store's JSON have no type
type ProviderJson = any;

function directoryGet(path: string, query: Record<string, string>): Promise<ProviderJson> {
  if (!config.apiKey) throw new InternalServerError("API_KEY not set");
  if (!config.apiSecret) throw new InternalServerError("API_SECRET not set");
  const url = `${config.directoryApiUrl.replace(/\/$/, "")}${path}?${new URLSearchParams(query)}`;
  return fetchProviderJson("directory", url, signDirectory(config.apiKey, config.apiSecret));
}

/** Third-party names inside identifiers become the neutral words (storeId for the store's id). */
function neutralFeed(feed: ProviderJson): ProviderJson {
  if (!feed || typeof feed !== "object" || Array.isArray(feed)) return feed;
  const { itunesId, ...rest } = feed;
  return { ...rest, storeId: itunesId ?? null };
}

function neutralEpisode(item: ProviderJson): ProviderJson {
  const { feedItunesId, ...rest } = item ?? {};
  return { ...rest, feedStoreId: feedItunesId ?? null };
}

/** The feed fields of the directory search response, from a person-search episode (what it knows of its podcast). */
function feedOfEpisode(item: ProviderJson): ProviderJson {
  return {
    id: item.feedId, title: item.feedTitle ?? "", url: item.feedUrl ?? "", originalUrl: item.feedUrl ?? "", link: "",
    description: "", author: item.feedAuthor ?? "", ownerName: "", image: item.feedImage ?? "", artwork: item.feedImage ?? "",
    lastUpdateTime: null, lastCrawlTime: null, lastParseTime: null, lastGoodHttpStatusTime: null, lastHttpStatus: null,
    contentType: "", storeId: item.feedItunesId ?? null, generator: null, language: item.feedLanguage ?? "",
    type: null, dead: null, crawlErrors: null, parseErrors: null,
  };
}

export async function directorySearch(term: string, type: "term" | "person"): Promise<ProviderJson> {
  if (type === "term") {
    const data = await directoryGet("/search/byterm", { q: term });
    return { ...data, feeds: Array.isArray(data.feeds) ? data.feeds.map(neutralFeed) : [] };
  }
  // byperson answers episodes; the podcasts they belong to are the feeds of the response, the episodes stay in items.
  const data = await directoryGet("/search/byperson", { q: term });
  const items = Array.isArray(data.items) ? data.items : [];
  const feeds = new Map<number, ProviderJson>();
  for (const item of items) if (item?.feedId != null && !feeds.has(item.feedId)) feeds.set(item.feedId, feedOfEpisode(item));
  return {
    status: data.status ?? "true", feeds: [...feeds.values()], count: feeds.size,
    query: data.query ?? term, description: data.description ?? "", items: items.map(neutralEpisode),
  };
}

export async function directoryPodcast(id: string): Promise<ProviderJson> {
  const data = await directoryGet("/podcasts/byfeedid", { id });
  // An unknown id comes back as 200 with an empty feed (an empty array).
  if (!data.feed || Array.isArray(data.feed) || !data.feed.id) throw new NotFoundError("Podcast not found");
  return { ...data, feed: neutralFeed(data.feed) };
}

export function storeSearch(term: string): Promise<ProviderJson> {
  const query = new URLSearchParams({ term, media: "podcast", entity: "podcast", limit: "50" });
  return fetchProviderJson("store", `${config.storeApiUrl.replace(/\/$/, "")}/search?${query}`);
}
