/**
 * OPML import and export of a user's library.
 *
 * import_opml takes an OPML document or a list of feed URLs and answers at once: the import is a
 * durable job of the tasks service (house rule 6, docs/architecture.md) that the workers service runs in chunks through
 * import_chunk, so 1,000 feeds never hold a request open and a job whose worker died is resumed by
 * another (feeds it already subscribed then count as skipped). `imports` keeps, per user, the live
 * figures of their latest import for import_progress. backup_user exports OPML 2.0 that import_opml
 * reads back into the same library.
 */
import type { Context, ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { BadRequestError, ConflictError } from "../shared/errors";
import { splitCredentials } from "../shared/http";
import type { AuthUser, GatewayMeta } from "../shared/types";
import type { Ctx, DbThis } from "../shared/service-types";
import { addCustomPodcast, userFeeds } from "../shared/contracts/podcasts";
import { taskStatus, tasksCreate } from "../shared/contracts/tasks";
import { userRemoved } from "../shared/contracts/users";
import type { Static } from "../shared/contracts/answers";
import { isLocalFeed } from "../shared/contracts/local";
import type { LibraryFeed } from "../shared/contracts/podcasts";
import type { ImportChunkParams, ImportChunkResult, ImportFailure, ImportFeed, ImportOpmlPayload } from "../shared/contracts/opml";
import { CreateTasksResult, JOB_IMPORT_OPML } from "../shared/contracts/tasks";
import { buildOpml, parseOpml } from "../shared/opml";
import { importFeeds, Outcome } from "./opml.parts/import";
import { ImportOpmlAnswer, ImportProgressAnswer, OpmlText } from "../shared/contracts/opml";

/** The live figures of a user's latest import (_id = user_id). */
interface ImportDoc {
  _id: number;
  task_id: string;
  total: number;
  current: number;
  current_podcast: string | null;
  imported: number;
  skipped: number;
  failed: ImportFailure[];
  updated_at: Date;
}

interface OpmlMethods {
  feedsOf(p: { podcasts?: string[]; opml?: string }): { feeds: ImportFeed[]; rejected: ImportFailure[] };
}

type OpmlThis = DbThis<ImportDoc> & OpmlMethods;

const MAX_FEEDS = 10_000;
const id = { type: "number", integer: true, positive: true, convert: true };

function isHttpUrl(s: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s);
}

/** Feed URLs as the library compares them: without credentials and a trailing slash. */
function sameFeedKey(url: string): string {
  return splitCredentials(url.trim()).url.replace(/\/+$/, "");
}

const OpmlService: ServiceSchema<Record<string, never>, OpmlThis> = {
  name: "opml",
  mixins: [DbMixin({ name: "imports", indexes: [] })],
  actions: {
    /**
     * POST /api/data/import_opml: `podcasts` (feed URLs, as clients of this API family send them) and/or
     * `opml` (the document itself). Answers the task at once; 409 while the user's last import runs.
     */
    import_opml: {
      params: {
        user_id: id,
        podcasts: { type: "array", items: { type: "string", max: 4000 }, max: MAX_FEEDS, optional: true },
        opml: { type: "string", max: 5_000_000, optional: true },
      },
      response: ImportOpmlAnswer,
      async handler(this: OpmlThis, ctx: Ctx<{ user_id: number; podcasts?: string[]; opml?: string }>): Promise<Static<typeof ImportOpmlAnswer>> {
        const { user_id } = ctx.params;
        const { feeds, rejected } = this.feedsOf(ctx.params);
        if (feeds.length > MAX_FEEDS) throw new BadRequestError(`At most ${MAX_FEEDS} feeds per import`);
        const caller: AuthUser = ctx.meta.user ?? { id: user_id, isAdmin: false, keyId: 0, rssOnly: false, podcastIds: null };
        const payload = { feeds, rejected, caller } satisfies ImportOpmlPayload;
        const res: CreateTasksResult = await tasksCreate(ctx, {
          tasks: [{ task_type: JOB_IMPORT_OPML, user_id, payload, podcast_name: `${feeds.length} feeds`, dedupe_key: `opml:${user_id}` }],
        });
        if (!res.created.length) throw new ConflictError("An OPML import of this user is still running");
        const task_id = res.created[0].id;
        await this.adapter.removeMany({ _id: user_id });
        await this.adapter.insert({
          _id: user_id,
          task_id,
          total: feeds.length,
          current: 0,
          current_podcast: null,
          imported: 0,
          skipped: 0,
          failed: rejected,
          updated_at: new Date(),
        });
        this.logger.info("opml import queued", { user_id, task_id, feeds: feeds.length, rejected: rejected.length });
        return { success: true, message: `Importing ${feeds.length} feeds in the background`, task_id, total: feeds.length, rejected };
      },
    },
    /** GET /api/data/import_progress/{user_id}: the latest import's figures (zeros when there was none). */
    import_progress: {
      idempotent: true,
      params: { user_id: id },
      response: ImportProgressAnswer,
      async handler(this: OpmlThis, ctx: Ctx<{ user_id: number }>): Promise<Static<typeof ImportProgressAnswer>> {
        const doc: ImportDoc | null = await this.adapter.findOne({ _id: ctx.params.user_id });
        // current_podcast is "" when none: the web client reads it as a string.
        if (!doc) return { current: 0, total: 0, current_podcast: "", status: "NONE", task_id: null, imported: 0, skipped: 0, failed: [] };
        const task = await taskStatus(ctx, { task_id: doc.task_id }).catch(() => null);
        return {
          current: doc.current,
          total: doc.total,
          current_podcast: doc.current_podcast ?? "",
          status: task?.status ?? "SUCCESS",
          task_id: doc.task_id,
          imported: doc.imported,
          skipped: doc.skipped,
          failed: doc.failed,
        };
      },
    },
    /** POST /api/data/backup_user: the user's subscriptions as OPML 2.0 (text). */
    backup_user: {
      params: { user_id: id },
      response: OpmlText,
      async handler(this: OpmlThis, ctx: Context<{ user_id: number }, GatewayMeta & { $responseType?: string }>): Promise<string> {
        const feeds: LibraryFeed[] = await userFeeds(ctx, { user_id: ctx.params.user_id });
        ctx.meta.$responseType = "text/plain; charset=utf-8";
        // Local folders are left out: a local: address is no feed another app (or an import) can read.
        return buildOpml(
          "Podcast subscriptions",
          feeds.filter((f) => !isLocalFeed(f.feed_url)),
        );
      },
    },

    // --- Internal (the workers service runs the import job through it) ---

    /** Subscribes feeds[offset ..] of a job; the live figures move with every feed. */
    import_chunk: {
      visibility: "public",
      params: {
        user_id: id,
        task_id: "string",
        feeds: { type: "array", items: "object" },
        offset: { type: "number", min: 0 },
        total: { type: "number", min: 0 },
      },
      async handler(this: OpmlThis, ctx: Ctx<ImportChunkParams>): Promise<ImportChunkResult> {
        const { user_id, task_id, offset } = ctx.params;
        const owned = { _id: user_id, task_id };
        // A job started again by another worker counts from its first chunk again.
        if (offset === 0) await this.adapter.updateMany(owned, { $set: { current: 0, imported: 0, skipped: 0 } });
        const library: LibraryFeed[] = await userFeeds(ctx, { user_id });
        const have = new Set(library.flatMap((f) => [f.feed_url, f.final_url].filter((u): u is string => !!u).map(sameFeedKey)));
        const subscribe = async (feed: ImportFeed): Promise<Outcome> => {
          if (have.has(sameFeedKey(feed.url))) return "skipped";
          try {
            await addCustomPodcast(ctx, { feed_url: feed.url, user_id });
            return "imported";
          } catch (err) {
            if ((err as { code?: number })?.code === 409) return "skipped";
            throw err;
          }
        };
        const result = await importFeeds(ctx.params.feeds, subscribe, async (done, feed, outcome) => {
          const inc: Record<string, number> = outcome === "failed" ? {} : { [outcome]: 1 };
          await this.adapter.updateMany(owned, {
            $set: { current: offset + done, current_podcast: feed.title ?? feed.url, updated_at: new Date() },
            ...(outcome === "failed" ? {} : { $inc: inc }),
          });
        });
        if (result.failed.length) {
          const doc: ImportDoc | null = await this.adapter.findOne(owned);
          if (doc)
            await this.adapter.updateMany(owned, {
              $set: { failed: [...doc.failed.filter((f) => !result.failed.some((r) => r.url === f.url)), ...result.failed] },
            });
        }
        return result;
      },
    },
  },
  events: {
    [userRemoved.eventName]: userRemovedEvent({ adapter: "_id" }),
  },
  methods: {
    /** The feeds an import_opml request names (each URL once) and the entries refused as not http(s) URLs. */
    feedsOf(this: OpmlThis, p: { podcasts?: string[]; opml?: string }): { feeds: ImportFeed[]; rejected: ImportFailure[] } {
      if (!p.podcasts?.length && !p.opml) throw new BadRequestError("Send the feeds as podcasts (a list of URLs) or opml (the document)");
      const listed: ImportFeed[] = [];
      if (p.opml) {
        try {
          listed.push(...parseOpml(p.opml));
        } catch (err) {
          throw new BadRequestError(`The OPML document cannot be read: ${(err as Error)?.message ?? err}`);
        }
      }
      for (const url of p.podcasts ?? []) listed.push({ url: url.trim(), title: null });
      const seen = new Set<string>();
      const feeds: ImportFeed[] = [];
      const rejected: ImportFailure[] = [];
      for (const f of listed) {
        if (!isHttpUrl(f.url)) rejected.push({ url: f.url.slice(0, 200), reason: "Not an http(s) URL" });
        else if (!seen.has(sameFeedKey(f.url))) {
          seen.add(sameFeedKey(f.url));
          feeds.push(f);
        }
      }
      return { feeds, rejected };
    },
  },
};

export default OpmlService;
