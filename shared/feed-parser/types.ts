/**
 * What the feed parser returns. Plain JSON-serialisable objects only (they travel over NATS):
 * missing scalars are null, missing lists are [], dates are ISO strings.
 */

export interface ParseFeedOptions {
  /** Charset from the HTTP Content-Type, used for a Buffer whose XML declaration names none. */
  charset?: string;
  /** The feed's own URL (after redirects): relative links, enclosures and images are resolved against it. */
  baseUrl?: string;
}

export interface FeedPerson {
  name: string;
  /** Lower-cased; "host" when absent, as the Podcasting 2.0 spec says. */
  role: string;
  /** Lower-cased; "cast" when absent. */
  group: string;
  img: string | null;
  href: string | null;
}

export interface FeedFunding {
  url: string;
  text: string;
}

export interface FeedTranscript {
  url: string;
  type: string;
  language: string | null;
  rel: string | null;
}

export interface FeedChapters {
  url: string;
  type: string;
}

export interface FeedSoundbite {
  start_time: number;
  duration: number;
  title: string | null;
}

export interface FeedValueRecipient {
  name: string | null;
  type: string;
  address: string;
  split: number;
  fee: boolean;
  custom_key: string | null;
  custom_value: string | null;
}

export interface FeedValue {
  type: string;
  method: string;
  suggested: string | null;
  recipients: FeedValueRecipient[];
}

export interface FeedAlternateEnclosureSource {
  uri: string;
  content_type: string | null;
}

export interface FeedAlternateEnclosure {
  type: string;
  length: number;
  bitrate: number | null;
  height: number | null;
  language: string | null;
  title: string | null;
  rel: string | null;
  codecs: string | null;
  default: boolean;
  sources: FeedAlternateEnclosureSource[];
  integrity: { type: string; value: string } | null;
}

export interface FeedLocation {
  name: string;
  geo: string | null;
  osm: string | null;
  rel: string | null;
  country: string | null;
}

export interface FeedLicense {
  name: string;
  url: string | null;
}

export interface FeedTrailer {
  url: string;
  title: string;
  pub_date: string | null;
  length: number;
  type: string | null;
  season: number | null;
}

/** podcast:images (one entry per srcset candidate) and podcast:image. */
export interface FeedImage {
  url: string;
  width: number | null;
  height: number | null;
  purpose: string | null;
  type: string | null;
  alt: string | null;
}

export interface FeedTxt {
  purpose: string | null;
  text: string;
}

export interface FeedRemoteItem {
  feed_guid: string | null;
  feed_url: string | null;
  item_guid: string | null;
  medium: string | null;
  title: string | null;
}

export interface FeedBlock {
  /** Platform id ("google", "amazon"...) or null for all platforms. */
  id: string | null;
  blocked: boolean;
}

export interface FeedChat {
  server: string;
  protocol: string;
  account_id: string | null;
  space: string | null;
}

export interface FeedSocialInteract {
  uri: string;
  protocol: string;
  account_id: string | null;
  account_url: string | null;
  priority: number | null;
}

export interface FeedContentLink {
  href: string;
  text: string;
}

export interface FeedLiveItem {
  status: string;
  start: string | null;
  end: string | null;
  title: string | null;
  guid: string | null;
  enclosure_url: string | null;
  enclosure_type: string | null;
  content_links: FeedContentLink[];
}

export interface ParsedEpisode {
  /** guid text, else the enclosure URL, else link + title. */
  guid: string;
  title: string | null;
  /** HTML kept as is: content:encoded, else description, else itunes:summary (Atom: content, else summary). */
  description: string | null;
  pub_date: string | null;
  enclosure_url: string | null;
  enclosure_type: string | null;
  /** Bytes; 0 when missing or not a number. */
  enclosure_length: number;
  /** Seconds. */
  duration: number | null;
  /** Episode artwork, else the feed's. */
  image: string | null;
  link: string | null;
  author: string | null;
  /** Episode's own itunes:explicit, else the feed's. */
  explicit: boolean;
  episode: number | null;
  season: number | null;
  episode_type: string | null;
  keywords: string[];
  itunes_block: boolean;
  transcripts: FeedTranscript[];
  chapters: FeedChapters | null;
  soundbites: FeedSoundbite[];
  persons: FeedPerson[];
  values: FeedValue[];
  podcast_season: { number: number; name: string | null } | null;
  podcast_episode: { number: number; display: string | null } | null;
  alternate_enclosures: FeedAlternateEnclosure[];
  locations: FeedLocation[];
  license: FeedLicense | null;
  images: FeedImage[];
  txt: FeedTxt[];
  social_interacts: FeedSocialInteract[];
}

export interface ParsedFeed {
  format: "rss" | "atom" | "rdf";
  /** The rss version attribute ("2.0", "0.92"...), "1.0" for Atom and RDF. */
  version: string | null;
  title: string | null;
  description: string | null;
  link: string | null;
  author: string | null;
  owner_name: string | null;
  owner_email: string | null;
  image: string | null;
  language: string | null;
  explicit: boolean;
  /** iTunes categories with their sub-categories, then plain RSS categories, without duplicates. */
  categories: string[];
  keywords: string[];
  copyright: string | null;
  generator: string | null;
  pub_date: string | null;
  last_build_date: string | null;
  itunes_type: string | null;
  itunes_block: boolean;
  itunes_complete: boolean;
  new_feed_url: string | null;
  /** atom:link rel="self" / rel="next" (paged feeds). */
  self_url: string | null;
  next_url: string | null;
  podcast_guid: string | null;
  medium: string | null;
  /** null when the feed has no podcast:locked. */
  locked: boolean | null;
  locked_owner: string | null;
  funding: FeedFunding[];
  persons: FeedPerson[];
  values: FeedValue[];
  locations: FeedLocation[];
  license: FeedLicense | null;
  trailers: FeedTrailer[];
  images: FeedImage[];
  txt: FeedTxt[];
  podroll: FeedRemoteItem[];
  publisher: FeedRemoteItem | null;
  blocks: FeedBlock[];
  podping: boolean | null;
  chat: FeedChat | null;
  live_items: FeedLiveItem[];
  episodes: ParsedEpisode[];
}
