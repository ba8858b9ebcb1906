/**
 * Retention of downloads (GET, POST and DELETE /api/data/retention): the person's default in Settings, and a
 * podcast's own on its page, which "Use my default" clears. One form, saved with its button: how many
 * downloaded episodes are kept per podcast, after how many days a played one's download goes, whether saved
 * episodes are never deleted. The server's pass applies them (docs/library.md "Retention of downloads").
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok, type paths } from "../api";
import { me } from "../session";
import { ErrorNote, FormEnd, Loading, useAction, useLoad } from "../ui";

type Retention = paths["/api/data/retention"]["get"]["responses"]["200"]["content"]["application/json"];

/** The person's default, in Settings. */
export function RetentionSection() {
  return (
    <section aria-labelledby="retention-h">
      <h2 id="retention-h">Downloads</h2>
      <p class="muted">Which downloaded episodes the server deletes by itself. A podcast's own settings, on its page, win over these.</p>
      <RetentionForm podcastId={null} />
    </section>
  );
}

/** A podcast's own retention, on its page. */
export function PodcastRetention({ podcastId }: { podcastId: number }) {
  return (
    <section aria-labelledby="podcast-retention-h">
      <h2 id="podcast-retention-h">Downloads kept</h2>
      <RetentionForm podcastId={podcastId} />
    </section>
  );
}

function RetentionForm({ podcastId }: { podcastId: number | null }) {
  const user_id = me().user_id;
  const which = podcastId === null ? { user_id } : { user_id, podcast_id: podcastId };
  const current = useLoad(() => ok(api.GET("/api/data/retention", { params: { query: which } })), [user_id, podcastId]);
  const [form, setForm] = useState<{ keep_last: string; days: string; keep_saved: boolean } | null>(null);
  const show = (r: Retention) => setForm({ keep_last: String(r.keep_last), days: String(r.delete_after_days), keep_saved: r.keep_saved });
  useEffect(() => {
    if (current.data) show(current.data);
  }, [current.data]);
  const save = useAction();
  const [shown, setShown] = useState<Retention | null>(null);
  const r = shown ?? current.data;

  const submit = (e: Event) => {
    e.preventDefault();
    if (!form) return;
    const keep_last = Number(form.keep_last);
    const days = Number(form.days);
    void save.run(async () => {
      if (!Number.isInteger(keep_last) || keep_last < 0 || keep_last > 100_000) throw new Error("Keep the last: a whole number of episodes from 0 (no limit).");
      if (!Number.isInteger(days) || days < 0 || days > 3650) throw new Error("Delete after days: a whole number of days from 0 (never) to 3650.");
      const answer = await ok(api.POST("/api/data/retention", { body: { ...which, keep_last, delete_after_days: days, keep_saved: form.keep_saved } }));
      setShown(answer);
      show(answer);
      return "Download retention saved.";
    });
  };
  const useDefault = () =>
    void save.run(async () => {
      const answer = await ok(api.DELETE("/api/data/retention", { body: { user_id, podcast_id: podcastId! } }));
      setShown(answer);
      show(answer);
      return "This podcast follows your default again.";
    });

  if (current.loading && !current.data) return <Loading what="download retention" />;
  if (!form || !r) return <ErrorNote error={current.error} />;
  return (
    <form class="stack card-form" onSubmit={submit}>
      {podcastId !== null && <p class="muted">{r.customized ? "This podcast has its own settings." : "Your default applies (Settings, Downloads)."}</p>}
      <div class="settings-row">
        <label>
          Keep the last (episodes, 0 = all)
          <input
            type="number"
            min={0}
            max={100000}
            step={1}
            inputMode="numeric"
            value={form.keep_last}
            onInput={(e) => setForm({ ...form, keep_last: e.currentTarget.value })}
          />
        </label>
        <label>
          Delete after days (played episodes, 0 = never)
          <input
            type="number"
            min={0}
            max={3650}
            step={1}
            inputMode="numeric"
            value={form.days}
            onInput={(e) => setForm({ ...form, days: e.currentTarget.value })}
          />
        </label>
      </div>
      <label class="check">
        <input type="checkbox" checked={form.keep_saved} onChange={(e) => setForm({ ...form, keep_saved: e.currentTarget.checked })} />
        Never delete saved episodes
      </label>
      <FormEnd of={save} submit="Save download retention">
        {podcastId !== null && r.customized && (
          <button type="button" disabled={save.busy} onClick={useDefault}>
            Use my default
          </button>
        )}
      </FormEnd>
    </form>
  );
}
