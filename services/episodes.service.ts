/**
 * Episodes: the `episodes` collection (one record per feed item, shared by every subscriber of the
 * feed), `episode_states` (what one user did with one episode: position, completed, saved, when last
 * listened, which makes the history) and `listen_counters` (per user counters the players bump).
 *
 * The actions live in modules by concern under services/episodes.parts/: feed-sync (feed items in),
 * catalog (episode lists and lookups), listening (saves, progress, history, completion, bulk),
 * library (stats, overview, search, metadata), select-episodes (the queue's and playlists' joins) and
 * sync (play positions by feed and enclosure URL for the sync and notifications services).
 * Everything a user reads or writes is scoped by their subscriptions (asked of the podcasts service in
 * one call per request), and an episode older than the subscription's feed_cutoff_days is hidden from
 * that user only: the episode record is shared, so the cutoff is applied when reading.
 *
 * Reads over many episodes or states use in-memory indexes (episodes.parts/indexes.ts): a compact
 * catalogue of every episode and the states of recent readers, kept true on every write.
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { subscriptionsRemoved } from "../shared/contracts/podcasts";
import { userRemoved } from "../shared/contracts/users";
import type { Ctx, Store } from "../shared/service-types";
import { accessMethods } from "./episodes.parts/access";
import { catalogActions } from "./episodes.parts/catalog";
import { collectionsActions } from "./episodes.parts/collections.actions";
import { feedSyncActions, foldDuplicateEpisodes, type GuidDoc } from "./episodes.parts/feed-sync";
import { libraryActions, libraryMethods } from "./episodes.parts/library";
import { listeningActions, listeningMethods } from "./episodes.parts/listening";
import { peopleActions } from "./episodes.parts/people.actions";
import { recommendActions } from "./episodes.parts/recommend.actions";
import { extrasActions } from "./episodes.parts/extras.actions";
import { homeClientMethods } from "./episodes.parts/home-clients";
import { inboxActions, inboxMethods } from "./episodes.parts/inbox.actions";
import { config } from "../shared/config";
import { createIndexes, indexEvents, indexMethods } from "./episodes.parts/indexes";
import { selectEpisodesActions } from "./episodes.parts/select-episodes.actions";
import { syncActions } from "./episodes.parts/sync.actions";
import type { EpisodesMethods, EpisodesThis } from "./episodes.parts/this";

const EpisodesService: ServiceSchema<Record<string, never>, EpisodesThis> = {
  name: "episodes",
  mixins: [
    DbMixin(
      {
        name: "episodes",
        indexes: [
          { fields: { podcast_id: 1 } },
          // The catalogue's reads by date run in memory; on MongoDB the newest of some podcasts ("-pub_date,-_id") come sorted off this one.
          { fields: { podcast_id: 1, pub_date: -1, _id: -1 }, mongoOnly: true },
          // The guard of overlapping feed syncs (feed-sync.ts); duplicates of older versions are folded first (the mixin hands
          // this service and its episodes store to the repair).
          {
            fields: { podcast_id: 1, guid: 1 },
            unique: true,
            partial: { guid: { $type: "string" } },
            repair: (service, store) => foldDuplicateEpisodes(service as EpisodesThis, store as Store<GuidDoc>),
          },
          // Episodes naming a person (person_episodes): only those with persons are in it, so the case-insensitive match scans them, not all episodes.
          { fields: { "p20.persons.name": 1 }, sparse: true, mongoOnly: true },
        ],
      },
      [
        // episode_id: an episode's removal takes every user's state of it.
        { name: "episode_states", indexes: [{ fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }, { fields: { episode_id: 1 } }] },
        { name: "listen_counters" },
        // Dismissed inbox episodes (inbox.actions.ts): read per user, removed per user and podcast.
        { name: "inbox_dismissals", indexes: [{ fields: { user_id: 1 } }] },
      ],
    ),
  ],
  actions: {
    ...catalogActions,
    ...feedSyncActions,
    ...listeningActions,
    ...libraryActions,
    ...selectEpisodesActions,
    ...syncActions,
    ...extrasActions,
    ...collectionsActions,
    ...peopleActions,
    ...recommendActions,
    ...inboxActions,
  },
  created(this: EpisodesThis) {
    createIndexes(this);
  },
  async started(this: EpisodesThis) {
    await this.loadCatalog();
    this.reconcileTimer = setInterval(() => {
      this.reconcileCatalog(false).catch((err: Error) => this.logger.warn("catalogue check failed", { error: err.message }));
    }, config.catalogReconcileSeconds * 1000);
  },
  stopped(this: EpisodesThis) {
    clearInterval(this.reconcileTimer);
  },
  events: {
    ...indexEvents,
    /** A user left a podcast: their saves, history and other states of its episodes go with it. */
    async [subscriptionsRemoved.eventName](this: EpisodesThis, ctx: Ctx<{ user_id: number; podcast_id: number }>) {
      await this.stores.episode_states.removeMany({ user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id });
      await this.stores.inbox_dismissals.removeMany({ user_id: ctx.params.user_id, podcast_id: ctx.params.podcast_id });
      await this.statesChanged(ctx.params.user_id, null);
    },
    /** The account is gone: its episode states and counters go too, then the cached states. */
    [userRemoved.eventName]: userRemovedEvent(
      { episode_states: "user_id", listen_counters: "_id", inbox_dismissals: "user_id" },
      async function (this: EpisodesThis, user_id, removeData) {
        await removeData();
        await this.statesChanged(user_id, null);
      },
    ),
  },
  // Every method of EpisodesMethods, each part's with the signature declared there.
  methods: { ...accessMethods, ...listeningMethods, ...libraryMethods, ...homeClientMethods, ...indexMethods, ...inboxMethods } satisfies EpisodesMethods,
};

export default EpisodesService;
