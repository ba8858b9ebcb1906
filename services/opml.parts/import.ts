/**
 * One chunk of an OPML import: each feed subscribed through the podcasts service, a few at a time;
 * a feed already in the library is skipped, a feed that fails is reported by URL and reason.
 */
import { redactUrl, splitCredentials } from "../../shared/http";
import type { ImportChunkResult, ImportFeed } from "../../shared/contracts/opml";

/** Feeds subscribed at once within a chunk. */
export const IMPORT_CONCURRENCY = 5;

export type Outcome = "imported" | "skipped";

/** Why a feed failed, as the user reads it: the error's message, never a credential of the URL. */
export function failureReason(err: unknown): string {
  const thrown: unknown = err ?? "failed";
  const msg = (err as Error | null)?.message ?? String(thrown);
  return msg.replace(/https?:\/\/[^\s)]+/g, (u) => redactUrl(u));
}

/**
 * Runs `subscribe` over the feeds, IMPORT_CONCURRENCY at a time; `onDone` hears each finished feed
 * (how many are done, and its title) for progress.
 */
export async function importFeeds(
  feeds: ImportFeed[],
  subscribe: (feed: ImportFeed) => Promise<Outcome>,
  onDone: (done: number, feed: ImportFeed, outcome: Outcome | "failed") => Promise<void>,
): Promise<ImportChunkResult> {
  const result: ImportChunkResult = { imported: 0, skipped: 0, failed: [] };
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < feeds.length) {
      const feed = feeds[next++];
      let outcome: Outcome | "failed";
      try {
        outcome = await subscribe(feed);
        result[outcome]++;
      } catch (err) {
        outcome = "failed";
        // The user sees the URL they gave (without user:pass); logs never get it.
        result.failed.push({ url: splitCredentials(feed.url).url, reason: failureReason(err) });
      }
      await onDone(++done, feed, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(IMPORT_CONCURRENCY, feeds.length) }, lane));
  return result;
}
