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
  const authorization = crypto
    .createHash("sha1")
    .update(key + secret + date)
    .digest("hex");
  return { "X-Auth-Key": key, "X-Auth-Date": date, Authorization: authorization };
}

/** A JSON object of a provider (the directory's and the store's publish no types): each field is read defensively. */
type JsonObject = Record<string, unknown>;

/** A person-search episode of the directory: the fields of its podcast read here. */
interface DirectoryEpisode {
  feedId?: unknown;
  feedTitle?: unknown;
  feedUrl?: unknown;
  feedAuthor?: unknown;
  feedImage?: unknown;
  feedItunesId?: unknown;
  feedLanguage?: unknown;
}

async function directoryGet(path: string, query: Record<string, string>): Promise<JsonObject> {
  if (!config.apiKey) throw new InternalServerError("API_KEY not set");
  if (!config.apiSecret) throw new InternalServerError("API_SECRET not set");
  const url = `${config.directoryApiUrl.replace(/\/$/, "")}${path}?${new URLSearchParams(query).toString()}`;
  // A JSON object or array (fetchProviderJson): an array's fields read as absent below.
  const data: unknown = await fetchProviderJson("directory", url, signDirectory(config.apiKey, config.apiSecret));
  return data as JsonObject;
}

/** Third-party names inside identifiers become the neutral words (storeId for the store's id). */
function neutralFeed(feed: unknown): unknown {
  if (!feed || typeof feed !== "object" || Array.isArray(feed)) return feed;
  const { itunesId, ...rest } = feed as JsonObject;
  return { ...rest, storeId: itunesId ?? null };
}

function neutralEpisode(item: unknown): JsonObject {
  const { feedItunesId, ...rest } = (item ?? {}) as JsonObject;
  return { ...rest, feedStoreId: feedItunesId ?? null };
}

/** The feed fields of the directory search response, from a person-search episode (what it knows of its podcast). */
function feedOfEpisode(item: DirectoryEpisode): JsonObject {
  return {
    id: item.feedId,
    title: item.feedTitle ?? "",
    url: item.feedUrl ?? "",
    originalUrl: item.feedUrl ?? "",
    link: "",
    description: "",
    author: item.feedAuthor ?? "",
    ownerName: "",
    image: item.feedImage ?? "",
    artwork: item.feedImage ?? "",
    lastUpdateTime: null,
    lastCrawlTime: null,
    lastParseTime: null,
    lastGoodHttpStatusTime: null,
    lastHttpStatus: null,
    contentType: "",
    storeId: item.feedItunesId ?? null,
    generator: null,
    language: item.feedLanguage ?? "",
    type: null,
    dead: null,
    crawlErrors: null,
    parseErrors: null,
  };
}

export async function directorySearch(term: string, type: "term" | "person"): Promise<JsonObject> {
  if (type === "term") {
    const data = await directoryGet("/search/byterm", { q: term });
    return { ...data, feeds: Array.isArray(data.feeds) ? data.feeds.map(neutralFeed) : [] };
  }
  // byperson answers episodes; the podcasts they belong to are the feeds of the response, the episodes stay in items.
  const data = await directoryGet("/search/byperson", { q: term });
  const items = (Array.isArray(data.items) ? data.items : []) as (DirectoryEpisode | null | undefined)[];
  // Keyed by the directory's feed id as it came (a number).
  const feeds = new Map<unknown, JsonObject>();
  for (const item of items) if (item?.feedId != null && !feeds.has(item.feedId)) feeds.set(item.feedId, feedOfEpisode(item));
  return {
    status: data.status ?? "true",
    feeds: [...feeds.values()],
    count: feeds.size,
    query: data.query ?? term,
    description: data.description ?? "",
    items: items.map(neutralEpisode),
  };
}

export async function directoryPodcast(id: string): Promise<JsonObject> {
  const data = await directoryGet("/podcasts/byfeedid", { id });
  const feed = data.feed as { id?: unknown } | null | undefined;
  // An unknown id comes back as 200 with an empty feed (an empty array).
  if (!feed || Array.isArray(feed) || !feed.id) throw new NotFoundError("Podcast not found");
  return { ...data, feed: neutralFeed(feed) };
}

export async function storeSearch(term: string): Promise<unknown> {
  const query = new URLSearchParams({ term, media: "podcast", entity: "podcast", limit: "50" });
  const data: unknown = await fetchProviderJson("store", `${config.storeApiUrl.replace(/\/$/, "")}/search?${query.toString()}`);
  return data;
}
