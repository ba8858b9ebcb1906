/**
 * A subscribed podcast's own settings, each saved as it changes: auto-download (enable_auto_download),
 * notifications (podcast/toggle_notifications), playback speed (podcast/set_playback_speed, or
 * clear_podcast_playback_speed for the person's default) and the seconds skipped at start and end
 * (adjust_skip_times). Read from the server when shown (a subscription made again starts afresh):
 * get_play_episode_details gives the speed and skips the player will use.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, Outcome, SpeedOptions, useAction, useLoad } from "../ui";

export function PodcastSettings({ podcastId }: { podcastId: number }) {
  const user_id = me().user_id;
  const play = useLoad(() => ok(api.POST("/api/data/get_play_episode_details", { body: { user_id, podcast_id: podcastId } })), [user_id, podcastId]);
  const switches = useLoad(async () => {
    const body = { user_id, podcast_id: podcastId };
    const [auto, notify] = await Promise.all([
      ok(api.POST("/api/data/get_auto_download_status", { body })),
      ok(api.POST("/api/data/podcast/notification_status", { body })),
    ]);
    return { auto: auto.auto_download, notify: notify.enabled };
  }, [user_id, podcastId]);
  const [auto, setAuto] = useState<boolean | null>(null);
  const [notify, setNotify] = useState<boolean | null>(null);
  useEffect(() => {
    if (switches.data) {
      setAuto(switches.data.auto);
      setNotify(switches.data.notify);
    }
  }, [switches.data]);
  const save = useAction();

  const apply = (what: string, fn: () => Promise<unknown>) =>
    void save.run(async () => {
      await fn();
      return `${what} saved.`;
    });
  const body = { user_id, podcast_id: podcastId };

  const onSkip = (which: "start_skip" | "end_skip", raw: string) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 3600) {
      void save.run(() => Promise.reject(new Error("Skip times are whole seconds from 0 to 3600.")));
      return;
    }
    // Only the changed one is sent: the server keeps the other as it is.
    apply(which === "start_skip" ? "Skip intro" : "Skip outro", () => ok(api.POST("/api/data/adjust_skip_times", { body: { ...body, [which]: n } })));
  };

  const onSpeed = (raw: string) =>
    apply("Playback speed", async () => {
      if (raw === "") await ok(api.POST("/api/data/clear_podcast_playback_speed", { body }));
      else await ok(api.POST("/api/data/podcast/set_playback_speed", { body: { ...body, playback_speed: Number(raw) } }));
      await play.reload();
    });

  const d = play.data;
  const speed = d?.playback_speed_customized ? String(d.playback_speed) : "";
  return (
    <section aria-labelledby="settings-h">
      <h2 id="settings-h">Settings</h2>
      <div class="stack podcast-settings">
        <ErrorNote error={switches.error} />
        <label class="check">
          <input
            type="checkbox"
            checked={!!auto}
            disabled={auto === null}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setAuto(on);
              apply("Auto-download", () => ok(api.POST("/api/data/enable_auto_download", { body: { ...body, auto_download: on } })));
            }}
          />
          Auto-download
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={!!notify}
            disabled={notify === null}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setNotify(on);
              apply("Notifications", () => ok(api.POST("/api/data/podcast/toggle_notifications", { body: { ...body, enabled: on } })));
            }}
          />
          Notifications
        </label>
        {play.loading && !d && <Loading what="playback settings" />}
        <ErrorNote error={play.error} />
        {d && (
          <div class="settings-row">
            <label>
              Playback speed
              <select value={speed} onChange={(e) => onSpeed(e.currentTarget.value)}>
                <option value="">Default{d.playback_speed_customized ? "" : ` (${d.playback_speed}×)`}</option>
                <SpeedOptions current={d.playback_speed} />
              </select>
            </label>
            <label>
              Skip intro (seconds)
              <input
                type="number"
                min={0}
                max={3600}
                step={1}
                inputMode="numeric"
                defaultValue={String(d.start_skip)}
                onChange={(e) => onSkip("start_skip", e.currentTarget.value)}
              />
            </label>
            <label>
              Skip outro (seconds)
              <input
                type="number"
                min={0}
                max={3600}
                step={1}
                inputMode="numeric"
                defaultValue={String(d.end_skip)}
                onChange={(e) => onSkip("end_skip", e.currentTarget.value)}
              />
            </label>
          </div>
        )}
        <Outcome of={save} />
      </div>
    </section>
  );
}
