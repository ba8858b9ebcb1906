/**
 * episodes.collection_episodes: the episodes of a user's collections (services/collections.service.ts
 * owns what a collection holds; the episodes and states live here). A collection is a union: the
 * episodes added one by one, and every episode of its podcasts (those added, and those of its
 * categories, from a time on when the collection was not backfilled), minus those taken out. Worked out
 * over the catalogue rows and cached states; only the page's documents are read from the store.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { CollectionEpisodesParams, CollectionMembers, CollectionPage } from "../../shared/contracts/episodes";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import type { CatalogRow } from "./catalog-index";
import { EPISODE_FILTERS, EPISODE_SORTS, pageRows, type Row, visibleTo } from "./model";
import type { UserStates } from "./state-cache";
import type { Ctx } from "../../shared/service-types";
import type { EpisodesThis } from "./this";
import { savedListItem } from "./access";

const idList = { type: "array", items: { type: "number", integer: true, positive: true }, max: 100_000 };

/** The member rows of one collection the user sees (subscribed, within the feed cutoff), each once. */
function memberRows(svc: EpisodesThis, m: CollectionMembers, subs: Map<number, SubscriptionView>, states: UserStates): Row<CatalogRow>[] {
  const out = new Map<number, Row<CatalogRow>>();
  const excluded = new Set(m.excluded_ids);
  const add = (ep: CatalogRow | undefined) => {
    const sub = ep && subs.get(ep.podcast_id);
    if (ep && sub && !excluded.has(ep._id) && visibleTo(ep, sub)) out.set(ep._id, { ep, sub, st: states.byEpisode.get(ep._id) });
  };
  for (const { podcast_id, since } of m.podcasts) {
    if (subs.has(podcast_id)) for (const ep of svc.catalog.podcastSince(podcast_id, since)) add(ep);
  }
  for (const id of m.episode_ids) add(svc.catalog.get(id));
  return [...out.values()];
}

export const collectionsActions: ServiceActionsSchema = {
  /** See CollectionEpisodesParams: one page (limit 0: counts only) of each collection, in one call. */
  collection_episodes: {
    visibility: "public",
    params: {
      user_id: { type: "number", integer: true, positive: true },
      collections: {
        type: "array",
        max: 1000,
        items: {
          type: "object",
          props: {
            episode_ids: idList,
            excluded_ids: idList,
            podcasts: { type: "array", max: 100_000, items: { type: "object", props: { podcast_id: "number", since: { type: "number", nullable: true } } } },
          },
        },
      },
      offset: { type: "number", integer: true, min: 0, optional: true },
      limit: { type: "number", integer: true, min: 0, optional: true },
      sort_by: { type: "enum", values: Object.keys(EPISODE_SORTS), optional: true },
      sort_order: { type: "enum", values: ["asc", "desc"], optional: true },
      filter: { type: "enum", values: Object.keys(EPISODE_FILTERS), optional: true },
    },
    async handler(this: EpisodesThis, ctx: Ctx<CollectionEpisodesParams>): Promise<CollectionPage[]> {
      const p = ctx.params;
      const [subs, states]: [Map<number, SubscriptionView>, UserStates] = await Promise.all([this.subscriptionsOf(ctx, p.user_id), this.userStates(p.user_id)]);
      const keep = EPISODE_FILTERS[p.filter ?? "all"];
      const cuts = p.collections.map((m) => pageRows(memberRows(this, m, subs, states).filter(keep), p, EPISODE_SORTS[p.sort_by ?? "pub_date"], "desc"));
      const pages: Row[][] = await Promise.all(cuts.map((c) => this.withDocs(c.page)));
      const ids = Array.from(new Set(pages.flat().map((r) => r.ep._id)));
      const [queue, downloaded] = await Promise.all([this.queueOf(ctx, p.user_id, ids), this.downloadedOf(ctx, p.user_id, ids)]);
      return pages.map((page, n) => ({
        total: cuts[n].total,
        episodes: page.map((r) => savedListItem(this.queueItem(r, queue[r.ep._id], downloaded))),
      }));
    },
  },
};
