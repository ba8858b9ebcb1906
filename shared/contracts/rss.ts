/** The answers of the rss service's routes (services/rss.service.ts). */
import { Type, type Static } from "./answers";

/** GET /api/data/rss_feed_status: whether the user RSS feeds are on for the server. */
export const RssFeedsStatus = Type.Boolean();
export type RssFeedsStatus = Static<typeof RssFeedsStatus>;

/** POST /api/data/toggle_rss_feeds: the state after the switch. */
export const RssToggleAnswer = Type.Object({ success: Type.Boolean(), enabled: Type.Boolean() });
export type RssToggleAnswer = Static<typeof RssToggleAnswer>;
