/** Answers of the rss service's routes. */
import { PlainText, Type, type Static } from "./answers";

export const UserFeedXml = PlainText("The user's RSS 2.0 feed (itunes namespace)", "application/rss+xml");

/** GET /api/data/rss_feed_status: whether the user RSS feeds are on for the server. */
export const RssFeedsStatus = Type.Boolean();
export type RssFeedsStatus = Static<typeof RssFeedsStatus>;

/** POST /api/data/toggle_rss_feeds: the state after the switch. */
export const RssToggleAnswer = Type.Object({ success: Type.Boolean(), enabled: Type.Boolean() });
export type RssToggleAnswer = Static<typeof RssToggleAnswer>;
