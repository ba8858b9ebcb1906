/**
 * One sync of one user with a gPodder v2 server or a Nextcloud gpoddersync app (docs/phone-sync.md "Sync with gPodder servers and Nextcloud" has the rules):
 * - subscriptions: changes on either side since the last sync go to the other; a feed added on one side
 *   and removed on the other in the same interval is kept. A force sync starts from nothing (since=0):
 *   the union of both sides.
 * - play positions: for each episode the newest timestamp wins; nothing local is ever deleted.
 * - download / delete: the newest action per episode wins against what happened here; a delete removes
 *   the downloaded file only. `new` (marked unplayed elsewhere) is counted, never applied: it would
 *   erase local listening history.
 * The episode actions' `since` is the download's timestamp, so actions other devices upload while this
 * sync runs come again next time (the position rule makes a repeat harmless).
 */
import type { ServiceMethods } from "moleculer";
import type { ApplyDownloadActionsResult, LocalDownloadAction } from "../../shared/contracts/downloads";
import { applySyncActions, syncActions } from "../../shared/contracts/downloads";
import type { EpisodeSummary, SyncEpisodeRef, SyncEpisodeState } from "../../shared/contracts/episodes";
import { applySyncStates, episodeSummaries, syncEpisodeIds, syncStates } from "../../shared/contracts/episodes";
import type { SyncJobPayload } from "../../shared/contracts/sync";
import type { SyncFeed } from "../../shared/contracts/podcasts";
import { syncFeeds, syncSubscriptions } from "../../shared/contracts/podcasts";
import type { Caller } from "../../shared/contracts/call";
import { decryptSecret } from "../../shared/secrets";
import { BadRequestError } from "../../shared/errors";
import { apiTime, EpisodeAction, GpodderClient, parseApiTime } from "./gpodder";
import { SyncSettingsDoc, SyncSummary } from "./model";
import type { SyncThis } from "./this";

export const engineMethods: ServiceMethods = {
  client(this: SyncThis, s: SyncSettingsDoc): GpodderClient {
    const password = decryptSecret(s.password_sealed);
    if (password === null) throw new BadRequestError("The stored sync password cannot be read (SECRET_KEY changed): save the sync server again");
    return new GpodderClient({ url: s.server_url, username: s.username, password, rights: s.rights }, s.sync_type);
  },
  async runSync(this: SyncThis, ctx: Caller, s: SyncSettingsDoc, opts: SyncJobPayload): Promise<SyncSummary> {
    const gp: GpodderClient = this.client(s);
    const startedAt = new Date();
    await gp.login();
    await gp.saveDevice(s.device_id, `${this.broker.namespace || "podcast server"} (${s.device_id})`, "server");
    const out: SyncSummary = {
      subscriptions_added_here: 0,
      subscriptions_removed_here: 0,
      subscriptions_uploaded: 0,
      subscriptions_removed_there: 0,
      positions_applied: 0,
      actions_received: 0,
      actions_uploaded: 0,
      downloads_queued: 0,
      downloads_deleted: 0,
      failed_feeds: [],
    };

    // Subscriptions.
    const prev = new Set(opts.force ? [] : s.remote_feeds);
    const changes = await gp.subscriptionChanges(s.device_id, opts.force ? 0 : s.subs_since);
    const remoteAdd = new Set(changes.add);
    const remote = new Set([...prev, ...changes.add].filter((u) => !changes.remove.includes(u) || remoteAdd.has(u)));
    const localFeeds: SyncFeed[] = await syncFeeds(ctx, { user_id: s.user_id });
    const local = new Set(localFeeds.map((f) => f.feed_url));
    const localAdded = [...local].filter((u) => !prev.has(u));
    const localRemoved = [...prev].filter((u) => !local.has(u));
    const addHere = [...remoteAdd].filter((u) => !local.has(u));
    const removeHere = changes.remove.filter((u) => local.has(u) && !localAdded.includes(u) && !remoteAdd.has(u));
    const addThere = localAdded.filter((u) => !remote.has(u));
    const removeThere = localRemoved.filter((u) => remote.has(u) && !remoteAdd.has(u));
    const applied: { added: string[]; removed: number; failed: SyncSummary["failed_feeds"] } = await syncSubscriptions(ctx, {
      user_id: s.user_id,
      add: addHere,
      remove: removeHere,
    });
    // The upload's timestamp becomes `since` (as gPodder clients do), so our own changes do not come back as the server's.
    const subsSince = addThere.length || removeThere.length ? await gp.uploadSubscriptions(s.device_id, addThere, removeThere) : changes.timestamp;
    const agreed = new Set([...local, ...applied.added]);
    for (const u of removeHere) agreed.delete(u);
    Object.assign(out, {
      subscriptions_added_here: applied.added.length,
      subscriptions_removed_here: applied.removed,
      subscriptions_uploaded: addThere.length,
      subscriptions_removed_there: removeThere.length,
      failed_feeds: applied.failed,
    });
    const set: Partial<SyncSettingsDoc> = { subs_since: subsSince || changes.timestamp, remote_feeds: [...agreed] };

    if (!opts.subscriptions_only) {
      const feeds: SyncFeed[] = await syncFeeds(ctx, { user_id: s.user_id });
      // Episode actions: download, then upload what changed here since the last upload.
      const got = await gp.episodeActions(opts.force ? 0 : s.actions_since);
      out.actions_received = got.actions.length;
      const states: SyncEpisodeState[] = [];
      const files: (SyncEpisodeRef & { action: "download" | "delete"; at: string })[] = [];
      for (const a of got.actions) {
        const at = parseApiTime(a.timestamp);
        const kind = a.action?.toLowerCase();
        if (!at) continue;
        if (kind === "play" && Number.isFinite(Number(a.position)))
          states.push({
            podcast_url: a.podcast,
            episode_url: a.episode,
            position: Number(a.position),
            total: Number(a.total) || 0,
            completed: false,
            timestamp: at.toISOString(),
          });
        else if (kind === "download" || kind === "delete") files.push({ podcast_url: a.podcast, episode_url: a.episode, action: kind, at: at.toISOString() });
      }
      if (states.length) out.positions_applied = (await applySyncStates(ctx, { user_id: s.user_id, feeds, states })).applied;
      if (files.length) {
        // Only episodes of the user's podcasts come back, each with its id.
        // Each ref comes back as sent (its action and time with it), with its episode's id.
        const known = (await syncEpisodeIds(ctx, { feeds, refs: files })) as ((typeof files)[number] & { episode_id: number })[];
        const actions = known.map(({ episode_id, action, at }) => ({ episode_id, action, at }));
        const applied: ApplyDownloadActionsResult = await applySyncActions(ctx, { user_id: s.user_id, actions });
        Object.assign(out, { downloads_queued: applied.queued, downloads_deleted: applied.deleted });
      }
      const since = opts.force || !s.last_upload ? {} : { since: s.last_upload };
      const mine: SyncEpisodeState[] = await syncStates(ctx, { user_id: s.user_id, feeds, ...since });
      const plays: EpisodeAction[] = mine.map((m) => ({
        podcast: m.podcast_url,
        episode: m.episode_url,
        device: s.device_id,
        action: "play",
        timestamp: apiTime(new Date(m.timestamp)),
        started: 0,
        position: m.position,
        total: m.total,
      }));
      // De-duplicated: an action that came from the server (same kind, episode and time) does not go back.
      const key = (action: string, episode: string, at: string) => `${action}\n${episode}\n${apiTime(new Date(at))}`;
      const received = new Set([...states.map((st) => key("play", st.episode_url, st.timestamp)), ...files.map((f) => key(f.action, f.episode_url, f.at))]);
      const upload = [...plays, ...(await this.localFileActions(ctx, s, feeds, since))].filter(
        (a) => !received.has(key(a.action, a.episode, `${a.timestamp}Z`)),
      );
      if (upload.length) await gp.uploadEpisodeActions(upload);
      out.actions_uploaded = upload.length;
      Object.assign(set, { actions_since: got.timestamp, last_upload: startedAt });
    }
    await this.adapter.updateMany(
      { _id: s._id },
      { $set: { ...set, last_sync: new Date(), last_status: "success", last_error: null, last_error_code: null, last_result: out } },
    );
    return out;
  },
  /** The user's downloads and deletions here since the last upload, in synced feeds, as episode actions. */
  async localFileActions(this: SyncThis, ctx: Caller, s: SyncSettingsDoc, feeds: SyncFeed[], since: { since?: Date }): Promise<EpisodeAction[]> {
    const feedOf = new Map(feeds.map((f) => [f.podcast_id, f.feed_url]));
    const local: LocalDownloadAction[] = (await syncActions(ctx, { user_id: s.user_id, ...since })).filter((l) => feedOf.has(l.podcast_id));
    if (!local.length) return [];
    const episodes: EpisodeSummary[] = await episodeSummaries(ctx, { episode_ids: [...new Set(local.map((l) => l.episode_id))] });
    const urlOf = new Map(episodes.map((e) => [e.episode_id, e.url]));
    return local
      .filter((l) => urlOf.get(l.episode_id))
      .map((l) => ({
        podcast: feedOf.get(l.podcast_id)!,
        episode: urlOf.get(l.episode_id)!,
        device: s.device_id,
        action: l.action,
        timestamp: apiTime(new Date(l.at)),
      }));
  },
};
