/**
 * episodes.person_episodes (following.service): the episodes a person appears in, across the feeds on
 * this server, newest first: those whose podcast:person names them, and every episode of the podcasts
 * that name them as a whole (their channel, or the people database: podcast_ids). The user's own
 * podcasts are read with their state and feed cutoff; other feeds' episodes come without state.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { EpisodePeople, PersonEpisodesPage, PersonQuery } from "../../shared/contracts/following";
import { userSubscriptions } from "../../shared/contracts/podcasts";
import type { Ctx } from "../../shared/service-types";
import type { EpisodesThis } from "./this";
import { namesPattern } from "../../shared/regex";
import { type EpisodeDoc, time, visibleTo } from "./model";

export const peopleActions: ServiceActionsSchema = {
  /** New episodes and the people they name (following.service's notifications). */
  episode_people: {
    visibility: "public",
    params: { episode_ids: { type: "array", items: "number", max: 10_000 } },
    async handler(this: EpisodesThis, ctx: Ctx<{ episode_ids: number[] }>): Promise<EpisodePeople[]> {
      const docs: EpisodeDoc[] = await this.findByIds(this.adapter, ctx.params.episode_ids);
      return docs.map((e) => ({
        episode_id: e._id,
        podcast_id: e.podcast_id,
        title: e.title,
        url: e.enclosure_url,
        pub_date: e.pub_date ? new Date(e.pub_date).toISOString() : null,
        people: (e.p20?.persons ?? []).map((x: { name: string }) => x.name),
      }));
    },
  },
  /** One page (limit 0: counts only) per person, in the asked order; one store query for all of them. */
  person_episodes: {
    visibility: "public",
    params: {
      user_id: { type: "number", integer: true, positive: true },
      people: {
        type: "array",
        max: 1000,
        items: { type: "object", props: { name: "string", podcast_ids: { type: "array", items: "number", optional: true } } },
      },
      offset: { type: "number", integer: true, min: 0, optional: true },
      limit: { type: "number", integer: true, min: 0, optional: true },
    },
    async handler(this: EpisodesThis, ctx: Ctx<{ user_id: number; people: PersonQuery[]; offset?: number; limit?: number }>): Promise<PersonEpisodesPage[]> {
      const { user_id, people, offset = 0, limit } = ctx.params;
      if (!people.length) return [];
      const podcastIds = Array.from(new Set(people.flatMap((p) => p.podcast_ids ?? [])));
      const found: EpisodeDoc[] = await this.adapter.find({
        query: { $or: [{ "p20.persons.name": { $regex: namesPattern(people.map((p) => p.name)) } }, { podcast_id: { $in: podcastIds } }] },
      });
      const ofPodcasts = Array.from(new Set(found.map((e) => e.podcast_id)));
      const views = ofPodcasts.length ? await userSubscriptions(ctx, { user_id, podcast_ids: ofPodcasts, include_unsubscribed: true }) : [];
      const byPodcast = new Map(views.map((v) => [v.podcast_id, v]));
      const shown = found
        .filter((e) => byPodcast.has(e.podcast_id) && (!byPodcast.get(e.podcast_id)!.subscribed || visibleTo(e, byPodcast.get(e.podcast_id))))
        .sort((a, b) => time(b.pub_date) - time(a.pub_date) || b._id - a._id);
      const cuts = people.map((person) => {
        const key = person.name.toLowerCase();
        const whole = new Set(person.podcast_ids ?? []);
        const all = shown.filter((e) => whole.has(e.podcast_id) || (e.p20?.persons ?? []).some((x: { name: string }) => x.name.toLowerCase() === key));
        return { total: all.length, page: all.slice(offset, limit === undefined ? undefined : offset + limit) };
      });
      const pageIds = Array.from(new Set(cuts.flatMap((c) => c.page.map((e) => e._id))));
      const [states, downloaded] = await Promise.all([this.statesOf(user_id, pageIds), this.downloadedOf(ctx, user_id, pageIds)]);
      return cuts.map(({ total, page }) => ({
        total,
        episodes: page.map((e) => {
          const view = byPodcast.get(e.podcast_id)!;
          return { ...this.listItem(e, view, view.subscribed ? states.get(e._id) : undefined, downloaded), is_subscribed: view.subscribed };
        }),
      }));
    },
  },
};
