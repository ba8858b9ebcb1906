/**
 * A subscribed podcast's episode filters (GET and POST /api/data/podcast_filters): words or a regular
 * expression that an episode must match ("Include") or must not match ("Exclude"), in its title or show notes,
 * and its shortest and longest length (typed in minutes, sent in seconds). Auto-download, auto-queue and the
 * inbox apply them; "Only show matching episodes" makes the episode list below (podcast-episodes.tsx) apply
 * them too. The server checks the expression and says what is wrong with it.
 */
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, FormEnd, Loading, useAction, useLoad } from "../ui";

/** The podcast whose episode list shows only what its filters let through (null: none), and a count of saves to read it again. */
export const listFilter = signal<{ podcast_id: number; saves: number } | null>(null);

const MAX = 200;

/** Seconds as the minutes shown (a value set through the API may be a fraction). */
const minutes = (s: number | null) => (s === null ? "" : String(Math.round((s / 60) * 100) / 100));
/** Minutes typed as seconds; "" is no bound. */
const seconds = (m: string) => (m.trim() === "" ? null : Math.round(Number(m) * 60));

export function PodcastFilters({ podcastId }: { podcastId: number }) {
  const user_id = me().user_id;
  const loaded = useLoad(() => ok(api.GET("/api/data/podcast_filters", { params: { query: { user_id, podcast_id: podcastId } } })), [user_id, podcastId]);
  const [form, setForm] = useState({ include: "", exclude: "", min: "", max: "" });
  const save = useAction();
  useEffect(() => {
    const f = loaded.data;
    if (f) setForm({ include: f.include, exclude: f.exclude, min: minutes(f.min_duration), max: minutes(f.max_duration) });
  }, [loaded.data]);
  // Leaving the page (another podcast) shows its list whole again.
  useEffect(() => () => void (listFilter.value = null), [podcastId]);
  const only = listFilter.value?.podcast_id === podcastId;

  const submit = (e: Event) => {
    e.preventDefault();
    const [min_duration, max_duration] = [seconds(form.min), seconds(form.max)];
    void save.run(async () => {
      if ([min_duration, max_duration].some((v) => v !== null && !(Number.isInteger(v) && v >= 0))) throw new Error("Lengths are minutes, 0 or more.");
      const body = { user_id, podcast_id: podcastId, include: form.include, exclude: form.exclude, min_duration, max_duration };
      const saved = await ok(api.POST("/api/data/podcast_filters", { body }));
      setForm({ include: saved.include, exclude: saved.exclude, min: minutes(saved.min_duration), max: minutes(saved.max_duration) });
      if (only) listFilter.value = { podcast_id: podcastId, saves: (listFilter.value?.saves ?? 0) + 1 };
      return "Filters saved.";
    });
  };
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: (e.currentTarget as HTMLInputElement).value }),
  });

  return (
    <section aria-labelledby="filters-h">
      <h2 id="filters-h">Episode filters</h2>
      {loaded.loading && !loaded.data && <Loading what="the filters" />}
      <ErrorNote error={loaded.error} />
      {loaded.data && (
        <form class="stack podcast-filters" onSubmit={submit}>
          <p class="hint muted" id="filters-hint">
            Words separated by commas, or a regular expression between slashes such as /^part \d+/. Titles and show notes are searched, capitals or not.
            Auto-download, auto-queue and the inbox take only the episodes that pass.
          </p>
          <label>
            Include episodes matching
            <input type="text" maxLength={MAX} aria-describedby="filters-hint" {...field("include")} />
          </label>
          <label>
            Exclude episodes matching
            <input type="text" maxLength={MAX} aria-describedby="filters-hint" {...field("exclude")} />
          </label>
          <div class="settings-row">
            <label>
              Shortest (minutes)
              <input type="number" min={0} step="any" inputMode="decimal" {...field("min")} />
            </label>
            <label>
              Longest (minutes)
              <input type="number" min={0} step="any" inputMode="decimal" {...field("max")} />
            </label>
          </div>
          <FormEnd of={save} submit="Save filters" />
          <label class="check">
            <input type="checkbox" checked={only} onChange={(e) => (listFilter.value = e.currentTarget.checked ? { podcast_id: podcastId, saves: 0 } : null)} />
            Only show matching episodes below
          </label>
        </form>
      )}
    </section>
  );
}
