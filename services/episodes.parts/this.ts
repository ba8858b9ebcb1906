/**
 * The episodes service's `this`, declared once for the service file and every part: the db mixin's stores,
 * the methods each part defines (so what one part calls of another is visible here), and the fields of
 * the in-memory indexes (createIndexes in indexes.ts).
 */
import type { Caller } from "../../shared/contracts/call";
import type {
  EpisodeListItem,
  HistoryAnswer,
  HomeClientEpisode,
  HomeClientSections,
  QueueItem,
  StatsAnswer,
  StatsWithClientNamesAnswer,
} from "../../shared/contracts/episodes";
import type { QueuePositionsResult } from "../../shared/contracts/queue";
import type { SubscriptionView } from "../../shared/contracts/podcasts";
import type { Ctx, DbThis } from "../../shared/service-types";
import type { CatalogIndex, CatalogRow } from "./catalog-index";
import type { Listening } from "./library";
import type { EpisodeDoc, EpisodeStateDoc, ListenCounterDoc, Row } from "./model";
import type { InboxDismissalDoc } from "./inbox.actions";
import type { StateCache, UserStates } from "./state-cache";

/** The episodes a write of states names: the state's _id and podcast_id come from them. */
export type StateTarget = Pick<EpisodeDoc, "_id" | "podcast_id">;

/** A subscription as far as the catalogue's visible lists read it (recent_episodes passes its params). */
export type CutoffView = Pick<SubscriptionView, "podcast_id" | "feed_cutoff_days">;

/** The params of a bulk state change (bulkTargets reads them). */
export interface BulkParams {
  user_id: number;
  episode_ids: number[];
  is_vidsite?: boolean;
}

/** History item (user_history). */
export type HistoryItem = HistoryAnswer["data"][number];

/** The clients' names of get_stats' figures (home-clients.ts). */
export type StatsClientNames = Omit<StatsWithClientNamesAnswer, keyof StatsAnswer>;

/** Every method of the parts (access.ts, listening.ts, library.ts, home-clients.ts, indexes.ts, inbox.actions.ts); documented where each is defined. */
export interface EpisodesMethods {
  // access.ts
  access(ctx: Ctx<unknown>, user_id: number, podcast_id: number): Promise<SubscriptionView>;
  accessibleEpisode(ctx: Ctx<unknown>, user_id: number, episode_id: number): Promise<EpisodeDoc>;
  findByNameAndUrl(ctx: Caller, user_id: number, title: string | undefined, url: string): Promise<EpisodeDoc | null>;
  subscriptionsOf(ctx: Caller, user_id: number): Promise<Map<number, SubscriptionView>>;
  visibleEpisodes(ctx: Caller, user_id: number, episode_ids: number[]): Promise<EpisodeDoc[]>;
  statesOf(user_id: number, episode_ids: number[]): Promise<Map<number, EpisodeStateDoc>>;
  writeStates(user_id: number, episodes: StateTarget[], set: Partial<EpisodeStateDoc>): Promise<void>;
  storeStates(user_id: number, episodes: StateTarget[], existing: Set<number>, set: Partial<EpisodeStateDoc>): Promise<void>;
  joinedStates(ctx: Caller, user_id: number, keep: (st: EpisodeStateDoc) => boolean): Promise<Row<CatalogRow>[]>;
  join(ctx: Caller, user_id: number, states: readonly EpisodeStateDoc[]): Promise<Row<CatalogRow>[]>;
  withDocs(rows: Row<CatalogRow>[]): Promise<Row[]>;
  queueOf(ctx: Caller, user_id: number, episode_ids: number[]): Promise<QueuePositionsResult>;
  downloadedOf(ctx: Caller, user_id: number, episode_ids: number[]): Promise<Set<number>>;
  downloadedCount(ctx: Caller, user_id: number): Promise<number>;
  episodeItem(e: EpisodeDoc, sub: SubscriptionView, st: EpisodeStateDoc | undefined): Omit<EpisodeListItem, "downloaded">;
  listItem(e: EpisodeDoc, sub: SubscriptionView, st: EpisodeStateDoc | undefined, downloaded: Set<number>): EpisodeListItem;
  queueItem(r: Row, q: QueuePositionsResult[number] | undefined, downloaded: Set<number>): QueueItem;
  historyItem(r: Row, downloaded: Set<number>): HistoryItem;
  // listening.ts
  bulkTargets(ctx: Ctx<BulkParams>): Promise<{ episodes: EpisodeDoc[]; failed: number }>;
  // library.ts
  queueLength(ctx: Caller, user_id: number): Promise<number>;
  inListeningState(ctx: Caller, user_id: number, filter: string, rows: CatalogRow[], subs: Map<number, SubscriptionView>): Promise<CatalogRow[]>;
  listening(ctx: Caller, user_id: number): Promise<Listening>;
  // home-clients.ts
  statsClientNames(ctx: Caller, user_id: number, l: Listening, figures: StatsAnswer): Promise<StatsClientNames>;
  homeClientSections(
    ctx: Caller,
    user_id: number,
    l: Listening,
    recent: EpisodeStateDoc[],
  ): Promise<{ episodes: Map<number, HomeClientEpisode>; sections: HomeClientSections }>;
  // indexes.ts
  loadCatalog(): Promise<void>;
  storedCatalogMark(): Promise<number>;
  noteMark(mark: number | undefined): void;
  advanceMark(): void;
  reconcileCatalog(now: boolean): Promise<void>;
  catalogChanged(episode_ids: number[], announce?: boolean, mark?: number): Promise<void>;
  removeEpisodes(episode_ids: number[]): Promise<void>;
  userStates(user_id: number): Promise<UserStates>;
  statesChanged(user_id: number, episode_ids: number[] | null, announce?: boolean): Promise<void>;
  visibleLists(subs: CutoffView[], since?: number | null): (readonly CatalogRow[])[];
  buildGrams(): Promise<void>;
  newestVisible(subs: CutoffView[], since: number | null, offset: number, limit: number): { page: CatalogRow[]; total: number };
  searchCatalog(term: string): Promise<Map<number, CatalogRow[]>>;
  // inbox.actions.ts
  passingFilters(rows: Row<CatalogRow>[]): Promise<Row<CatalogRow>[]>;
  inboxLists(ctx: Caller, user_id: number, podcast_id?: number): Promise<Row<CatalogRow>[][]>;
}

/** The in-memory indexes and their bookkeeping (set by createIndexes, indexes.ts, whose methods explain them). */
export interface EpisodesIndexes {
  catalog: CatalogIndex;
  catalogLoading: Promise<void> | null;
  /** Episodes written while the catalogue loads: read again into the new index. */
  changedWhileLoading: Set<number> | null;
  /** The store's change mark the catalogue holds every change up to. */
  catalogMark: number;
  marksAhead: Set<number>;
  /** The store's mark at the last check that found the catalogue behind (null: it was not). */
  behindAt: number | null;
  /** Per episode, the ticket of its newest re-read. */
  rereads: Map<number, number>;
  rereadSeq: number;
  stateCache: StateCache;
  /** searchCatalog's kept answers by term. */
  searchCache: Map<string, { version: number; hits: Map<number, CatalogRow[]> }>;
  gramsBuilt: Promise<void> | null;
}

export type EpisodesThis = DbThis<EpisodeDoc, { episode_states: EpisodeStateDoc; listen_counters: ListenCounterDoc; inbox_dismissals: InboxDismissalDoc }> &
  EpisodesMethods &
  EpisodesIndexes & {
    /** The periodic catalogue check (started, stopped). */
    reconcileTimer: ReturnType<typeof setInterval>;
  };
