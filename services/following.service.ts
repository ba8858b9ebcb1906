/**
 * Following people across podcasts (PinePods' web client: person/subscribe, unsubscribe,
 * subscriptions, episodes, feed): the `followed_people` collection, one record per user and person
 * (by name, case-insensitive: the name is what feeds and the people database share).
 *
 * A person appears in an episode when its podcast:person names them, and in every episode of a podcast
 * whose channel names them or whose directory id the people database lists them as host of (people
 * service). Their episodes are worked out when read, across the feeds stored on this server, so the
 * ones a feed refresh finds are there without a job: a lookup costs one call each to the people,
 * podcasts and episodes services, however many people are asked about.
 */
import type { ServiceBroker, ServiceRegistry, ServiceSchema } from "moleculer";
import { DbMixin, isDuplicateKeyError } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { ForbiddenError, NotFoundError } from "../shared/errors";
import {
  type EpisodePeople,
  FollowAnswer,
  FollowedPeopleAnswer,
  HostFeedAnswer,
  type HostedBy,
  type NamingPodcast,
  PersonEpisodesAnswer,
  type PersonEpisodesPage,
  type PodcastsNaming,
} from "../shared/contracts/following";
import type { EpisodesCreatedEvent } from "../shared/contracts/episodes";
import { episodePeople, episodesCreated, personEpisodes } from "../shared/contracts/episodes";
import type { FollowerMessage } from "../shared/contracts/notifications";
import { notifyFollowers } from "../shared/contracts/notifications";
import { hostedBy } from "../shared/contracts/people";
import { podcastsNaming } from "../shared/contracts/podcasts";
import type { Caller } from "../shared/contracts/call";
import type { Ctx, DbThis } from "../shared/service-types";

interface FollowedDoc {
  _id: number;
  user_id: number;
  name: string;
  /** "<user_id>:<name lower-cased>": unique, one record per user and person. */
  key: string;
  image: string | null;
  /** The people database's id, when followed from it (0 in the path: none). */
  peopledb_id: number | null;
  /** The podcast where the user found them (0: none). */
  podcast_id: number | null;
  created_at: Date;
}

/** Per name, in the order asked: the people database's record of them and the stored podcasts naming them. */
interface Naming {
  hosted: HostedBy[string][];
  naming: PodcastsNaming;
}

/** What one lookup found of each person: the podcasts naming them and one page of their episodes. */
interface Found {
  hosted: HostedBy[string];
  podcasts: NamingPodcast[];
  page: PersonEpisodesPage;
}

interface FollowingMethods {
  lookup(ctx: Caller, user_id: number, names: string[], page: { limit: number; offset?: number }): Promise<Found[]>;
  naming(ctx: Caller, names: string[], user_id?: number): Promise<Naming>;
  imageOf(doc: FollowedDoc | null, found: Found): string | null;
}

type FollowingThis = DbThis<FollowedDoc> & FollowingMethods;

const id = { type: "number", integer: true, positive: true, convert: true };
const externalId = { type: "number", integer: true, min: 0, max: 2147483647, convert: true };
const personName = { type: "string", trim: true, min: 1, max: 200 };
/** Episodes person/feed lists (as PinePods does). */
const FEED_EPISODES = 300;

/** Whether a node runs the service (Moleculer 0.14's registry.hasService, which its typings leave out). */
const runs = (broker: ServiceBroker, name: string): boolean => (broker.registry as ServiceRegistry & { hasService(name: string): boolean }).hasService(name);

const keyOf = (user_id: number, name: string) => `${user_id}:${name.toLowerCase()}`;

const FollowingService: ServiceSchema<Record<string, never>, FollowingThis> = {
  name: "following",
  mixins: [DbMixin({ name: "followed_people", indexes: [{ fields: { key: 1 }, unique: true }, { fields: { user_id: 1 } }] })],
  actions: {
    /** POST /api/data/person/subscribe/{user_id}/{person_id}: follows person_name (again: the same record). */
    follow: {
      params: {
        user_id: id,
        person_id: externalId,
        person_name: personName,
        person_img: { type: "string", max: 2000, nullable: true, optional: true },
        podcast_id: { ...externalId, nullable: true, optional: true },
      },
      response: FollowAnswer,
      async handler(
        this: FollowingThis,
        ctx: Ctx<{ user_id: number; person_id: number; person_name: string; person_img?: string | null; podcast_id?: number | null }>,
      ): Promise<FollowAnswer> {
        const p = ctx.params;
        const doc: FollowedDoc = {
          _id: await this.nextId("followed_people"),
          user_id: p.user_id,
          name: p.person_name,
          key: keyOf(p.user_id, p.person_name),
          image: p.person_img || null,
          peopledb_id: p.person_id || null,
          podcast_id: p.podcast_id || null,
          created_at: new Date(),
        };
        try {
          await this.adapter.insert(doc);
        } catch (err) {
          if (!isDuplicateKeyError(err)) throw err;
          // The record the unique key refused this one for.
          const had: FollowedDoc = (await this.adapter.findOne({ key: doc.key }))!;
          return { success: true, message: `Already following ${had.name}`, person_id: had._id };
        }
        this.logger.info("person followed", { user_id: p.user_id, person_id: doc._id });
        return { success: true, message: `Following ${doc.name}`, person_id: doc._id };
      },
    },
    /** DELETE /api/data/person/unsubscribe/{user_id}/{person_id}: by this server's id, the people database's id or person_name. */
    unfollow: {
      params: { user_id: id, person_id: externalId, person_name: { ...personName, optional: true } },
      response: FollowAnswer,
      async handler(this: FollowingThis, ctx: Ctx<{ user_id: number; person_id: number; person_name?: string }>): Promise<FollowAnswer> {
        const { user_id, person_id, person_name } = ctx.params;
        const ways: object[] = [{ _id: person_id }, { peopledb_id: person_id }];
        if (person_name) ways.push({ key: keyOf(user_id, person_name) });
        const doc: FollowedDoc | null = await this.adapter.findOne({ user_id, $or: ways });
        if (!doc) throw new NotFoundError("You do not follow this person");
        await this.adapter.removeMany({ _id: doc._id });
        return { success: true, message: `No longer following ${doc.name}`, person_id: doc._id };
      },
    },
    /** GET /api/data/person/subscriptions/{user_id}: the people the user follows, with their podcasts and episodes counted. */
    followed: {
      idempotent: true,
      params: { user_id: id },
      response: FollowedPeopleAnswer,
      async handler(this: FollowingThis, ctx: Ctx<{ user_id: number }>): Promise<FollowedPeopleAnswer> {
        const { user_id } = ctx.params;
        const docs: FollowedDoc[] = await this.adapter.find({ query: { user_id }, sort: ["name", "_id"] });
        const found: Found[] = await this.lookup(
          ctx,
          user_id,
          docs.map((d) => d.name),
          { limit: 0 },
        );
        return {
          subscriptions: docs.map((d, n) => ({
            personid: d._id,
            userid: d.user_id,
            name: d.name,
            image: this.imageOf(d, found[n]) ?? "",
            peopledbid: d.peopledb_id,
            associatedpodcasts: found[n].podcasts.length,
            episode_count: found[n].page.total,
          })),
        };
      },
    },
    /** GET /api/data/person/episodes/{user_id}/{person_id}: a followed person's episodes, newest first. */
    person_episodes: {
      idempotent: true,
      params: {
        user_id: id,
        person_id: id,
        limit: { type: "number", integer: true, min: 1, max: 1000, convert: true, optional: true },
        offset: { type: "number", integer: true, min: 0, convert: true, optional: true },
      },
      response: PersonEpisodesAnswer,
      async handler(this: FollowingThis, ctx: Ctx<{ user_id: number; person_id: number; limit?: number; offset?: number }>): Promise<PersonEpisodesAnswer> {
        const { user_id, person_id, limit = 50, offset = 0 } = ctx.params;
        const doc: FollowedDoc | null = await this.adapter.findOne({ _id: person_id });
        if (!doc) throw new NotFoundError("Followed person not found");
        if (doc.user_id !== user_id) throw new ForbiddenError("This person is followed by another user");
        const [found]: Found[] = await this.lookup(ctx, user_id, [doc.name], { limit, offset });
        return { episodes: found.page.episodes, total: found.page.total };
      },
    },
    /** GET /api/data/person/feed/{user_id}?name&include_podcasts&person_id: anyone by name, followed or not. */
    person_feed: {
      idempotent: true,
      params: {
        user_id: id,
        name: personName,
        include_podcasts: { type: "boolean", convert: true, optional: true },
        person_id: { ...externalId, optional: true },
      },
      response: HostFeedAnswer,
      async handler(this: FollowingThis, ctx: Ctx<{ user_id: number; name: string; include_podcasts?: boolean; person_id?: number }>): Promise<HostFeedAnswer> {
        const { user_id, name, include_podcasts = true } = ctx.params;
        const [[found], doc]: [Found[], FollowedDoc | null] = await Promise.all([
          this.lookup(ctx, user_id, [name], { limit: FEED_EPISODES }),
          this.adapter.findOne({ key: keyOf(user_id, name) }),
        ]);
        return {
          person: { name: doc?.name ?? name, image: this.imageOf(doc, found) },
          podcasts: include_podcasts
            ? found.podcasts.map((p) => ({
                podcastid: p.podcast_id,
                podcastname: p.title,
                feedurl: p.feed_url,
                artworkurl: p.artwork_url ?? "",
                description: p.description ?? "",
                author: p.author ?? "",
                websiteurl: p.website_url ?? "",
                episodecount: p.episode_count,
                podcastindexid: p.podcast_index_id ?? 0,
                explicit: p.explicit,
                is_subscribed: p.subscribed,
              }))
            : [],
          episodes: found.page.episodes,
        };
      },
    },

    // --- Internal (not in the route table) ---

    /** The lower-cased names a user follows (recommendations). */
    followed_names: {
      visibility: "public",
      params: { user_id: id },
      async handler(this: FollowingThis, ctx: Ctx<{ user_id: number }>): Promise<string[]> {
        const docs: FollowedDoc[] = await this.adapter.find({ query: { user_id: ctx.params.user_id } });
        return docs.map((d) => d.name.toLowerCase());
      },
    },
  },
  events: {
    /** New episodes a refresh found: followers of a person they name (or whose podcast names them as a whole) get a notification. */
    async [episodesCreated.eventName](this: FollowingThis, ctx: Ctx<EpisodesCreatedEvent>) {
      // Everything below only builds notifications: nothing to do without a notifications service.
      if (!runs(this.broker, "notifications")) return;
      const docs: FollowedDoc[] = await this.adapter.find({});
      if (!docs.length) return;
      const names = Array.from(new Set(docs.map((d) => d.name.toLowerCase())));
      const [episodes, { naming }]: [EpisodePeople[], Naming] = await Promise.all([
        episodePeople(ctx, { episode_ids: ctx.params.episode_ids }),
        this.naming(ctx, names),
      ]);
      const whole = new Map(names.map((n, i) => [n, naming[i].find((p) => p.podcast_id === ctx.params.podcast_id)]));
      // The podcast's title is known here when it names someone as a whole.
      const podcast_title = [...whole.values()].find(Boolean)?.title ?? null;
      const messages: FollowerMessage[] = [];
      for (const d of docs) {
        const name = d.name.toLowerCase();
        for (const e of episodes) {
          if (!whole.get(name) && !e.people.some((p) => p.toLowerCase() === name)) continue;
          messages.push({
            user_id: d.user_id,
            person: d.name,
            podcast_id: e.podcast_id,
            podcast_title,
            episode_id: e.episode_id,
            episode_title: e.title,
            episode_url: e.url,
            pub_date: e.pub_date,
          });
        }
      }
      if (messages.length) await notifyFollowers(ctx, { messages });
    },
    "user.removed": userRemovedEvent({ adapter: "user_id" }),
  },
  methods: {
    /** For each name: the people database's hosts (when its service runs), the podcasts naming them, a page of their episodes. */
    async lookup(this: FollowingThis, ctx: Caller, user_id: number, names: string[], page: { limit: number; offset?: number }): Promise<Found[]> {
      if (!names.length) return [];
      const { hosted, naming }: Naming = await this.naming(ctx, names, user_id);
      const pages: PersonEpisodesPage[] = await personEpisodes(ctx, {
        user_id,
        people: names.map((name, n) => ({ name, podcast_ids: naming[n].map((p) => p.podcast_id) })),
        ...page,
      });
      return hosted.map((h, n) => ({ hosted: h, podcasts: naming[n], page: pages[n] }));
    },
    /**
     * For each name (any case): the people database's record of them, when its service runs (PEOPLE_URL is
     * optional: without it a person is found through the feeds alone), and the stored podcasts naming them
     * (with user_id: whether that user subscribes to each).
     */
    async naming(this: FollowingThis, ctx: Caller, names: string[], user_id?: number): Promise<Naming> {
      const byName: HostedBy = runs(this.broker, "people") ? await hostedBy(ctx, { names }) : {};
      const hosted = names.map((n) => byName[n.toLowerCase()] ?? { podcast_index_ids: [], img: null });
      const naming: PodcastsNaming = await podcastsNaming(ctx, {
        user_id,
        people: names.map((name, n) => ({ name, podcast_index_ids: hosted[n].podcast_index_ids })),
      });
      return { hosted, naming };
    },
    /** The picture the user followed them with, else the people database's, else the first feed's. */
    imageOf(this: FollowingThis, doc: FollowedDoc | null, found: Found): string | null {
      return doc?.image ?? found.hosted.img ?? found.podcasts.find((p) => p.person_img)?.person_img ?? null;
    },
  },
};

export default FollowingService;
