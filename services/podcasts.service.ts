/**
 * Podcasts and subscriptions (house rule 7, docs/architecture.md).
 *
 * `podcasts` holds one record per feed (URL + credentials), fetched once for all its subscribers; its
 * credentials are kept for refreshes and never returned or logged. `subscriptions` holds what is per
 * user: subscribed date, feed_cutoff_days, auto-download, notifications, their own category list and
 * their overrides of the feed's title, description, author, artwork and website (update_podcast_info
 * never changes what other subscribers see).
 *
 * Adding a feed nobody has yet: the feeds service fetches and parses it, this service stores the
 * record, the newest ADD_PODCAST_SYNC_EPISODES episodes are stored before the answer and the rest by
 * an import_feed job of the workers. The record's content hash is written only when every episode is
 * stored, so an import that still fails is completed by the next refresh, which sees a "changed" feed.
 */
import type { ServiceSchema } from "moleculer";
import { DbMixin } from "../shared/db.mixin";
import { userRemovedEvent } from "../shared/user-data";
import { automationActions } from "./podcasts.parts/automation.actions";
import { directoryActions } from "./podcasts.parts/directory.actions";
import { filtersActions } from "./podcasts.parts/filters.actions";
import { indexMatchActions } from "./podcasts.parts/index-match.actions";
import { libraryActions } from "./podcasts.parts/library.actions";
import { mergeActions } from "./podcasts.parts/merge.actions";
import { peopleActions } from "./podcasts.parts/people.actions";
import { playbackActions } from "./podcasts.parts/playback.actions";
import { readActions, readMethods } from "./podcasts.parts/read.actions";
import { recommendationsActions, recommendationsMethods } from "./podcasts.parts/recommendations.actions";
import { retentionActions } from "./podcasts.parts/retention.actions";
import { settingsActions, settingsMethods } from "./podcasts.parts/settings.actions";
import { subscribeActions, subscribeMethods } from "./podcasts.parts/subscribe.actions";
import { movesActions, movesMethods } from "./podcasts.parts/moves.actions";
import { syncActions } from "./podcasts.parts/sync.actions";
import type { PodcastsThis } from "./podcasts.parts/this";
import { userRemoved } from "../shared/contracts/users";

const PodcastsService: ServiceSchema<Record<string, never>, PodcastsThis> = {
  name: "podcasts",
  mixins: [
    DbMixin(
      // p20.persons.name (sparse, MongoDB) and podcast_index_id: podcasts naming a person (only those with persons are scanned by the
      // case-insensitive match) or known to the people database.
      {
        name: "podcasts",
        indexes: [
          { fields: { feed_key: 1 }, unique: true },
          { fields: { feed_url: 1 } },
          { fields: { "p20.persons.name": 1 }, sparse: true, mongoOnly: true },
          { fields: { podcast_index_id: 1 } },
        ],
      },
      [
        { name: "subscriptions", indexes: [{ fields: { key: 1 }, unique: true }, { fields: { user_id: 1 } }, { fields: { podcast_id: 1 } }] },
        // Former addresses of moved feeds (moves.actions.ts), read by _id (the feed_key they had).
        { name: "podcast_aliases" },
      ],
    ),
  ],
  actions: {
    ...subscribeActions,
    ...readActions,
    ...settingsActions,
    ...libraryActions,
    ...mergeActions,
    ...movesActions,
    ...playbackActions,
    ...syncActions,
    ...indexMatchActions,
    ...automationActions,
    ...filtersActions,
    ...retentionActions,
    ...peopleActions,
    ...recommendationsActions,
    ...directoryActions,
  },
  events: {
    /** The account is gone: so are its subscriptions (the shared feed records stay for other subscribers). */
    [userRemoved.eventName]: userRemovedEvent({ subscriptions: "user_id" }),
  },
  created(this: PodcastsThis) {
    /** user_id -> the user's subscription views and the stores' mark they were read under (user_subscriptions). */
    this.viewsByUser = new Map();
  },
  methods: {
    ...subscribeMethods,
    ...movesMethods,
    ...readMethods,
    ...settingsMethods,
    ...recommendationsMethods,
  },
};

export default PodcastsService;
