/**
 * podcasts_naming (following.service): the podcasts stored on this server that name a person (and
 * whether user_id, when given, is subscribed to them), in
 * their channel's podcast:person or, through the people database, by their directory id. Channel
 * people belong to every episode of the podcast (Podcasting 2.0), so such a podcast counts as a whole.
 */
import type { ServiceActionsSchema } from "moleculer";
import type { Ctx } from "../../shared/service-types";
import type { PodcastsThis } from "./this";
import type { NamingPodcast, PersonQuery, PodcastsNaming } from "../../shared/contracts/following";
import { namesPattern } from "../../shared/regex";
import type { PodcastDoc, SubscriptionDoc } from "./model";

export const peopleActions: ServiceActionsSchema = {
  podcasts_naming: {
    visibility: "public",
    params: {
      people: {
        type: "array",
        max: 1000,
        items: { type: "object", props: { name: "string", podcast_index_ids: { type: "array", items: "number", optional: true } } },
      },
      user_id: { type: "number", integer: true, positive: true, optional: true },
    },
    async handler(this: PodcastsThis, ctx: Ctx<{ people: PersonQuery[]; user_id?: number }>): Promise<PodcastsNaming> {
      const { people, user_id } = ctx.params;
      if (!people.length) return [];
      const indexIds = Array.from(new Set(people.flatMap((p) => p.podcast_index_ids ?? [])));
      const found: PodcastDoc[] = await this.adapter.find({
        query: { $or: [{ "p20.persons.name": { $regex: namesPattern(people.map((p) => p.name)) } }, { podcast_index_id: { $in: indexIds } }] },
        sort: ["title", "_id"],
      });
      const subs: SubscriptionDoc[] =
        found.length && user_id ? await this.stores.subscriptions.find({ query: { user_id, podcast_id: { $in: found.map((p) => p._id) } } }) : [];
      const subscribed = new Set(subs.map((x) => x.podcast_id));
      return people.map((person) => {
        const key = person.name.toLowerCase();
        const ids = new Set(person.podcast_index_ids ?? []);
        return found.flatMap((p): NamingPodcast[] => {
          const named = (p.p20?.persons ?? []).find((x: { name: string }) => x.name.toLowerCase() === key);
          if (!named && !(p.podcast_index_id && ids.has(p.podcast_index_id))) return [];
          return [
            {
              podcast_id: p._id,
              title: p.title,
              feed_url: p.feed_url,
              artwork_url: p.artwork_url,
              description: p.description,
              author: p.author,
              website_url: p.website_url,
              episode_count: p.episode_count,
              podcast_index_id: p.podcast_index_id,
              explicit: p.explicit,
              person_img: named?.img ?? null,
              subscribed: subscribed.has(p._id),
            },
          ];
        });
      });
    },
  },
};
