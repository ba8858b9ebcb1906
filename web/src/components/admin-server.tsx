/**
 * Admin: server-wide switches (users' RSS feeds, episode downloads), what a finished download writes beside the
 * audio, and upkeep jobs an admin may start by hand.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";
import { Switch } from "./admin-kit";

type Format = "json" | "xml" | "ffmetadata" | "both";
interface Metadata {
  folder_cover: boolean;
  episode_cover: boolean;
  metadata_sidecar: boolean;
  metadata_subfolder: boolean;
  metadata_format: Format;
}

export function ServerSection() {
  const config = useLoad(() => ok(api.GET("/api/data/config")), []);
  return (
    <>
      <section aria-labelledby="switches-h">
        <h2 id="switches-h">Feeds and downloads</h2>
        <Switch
          label="RSS feeds"
          hint="Each user's own RSS feed of their podcasts, for other podcast apps. When off, every such feed answers “forbidden”."
          read={() => ok(api.GET("/api/data/rss_feed_status"))}
          flip={async () => (await ok(api.POST("/api/data/toggle_rss_feeds", { body: {} }))).enabled}
          said={(on) => (on ? "RSS feeds are on." : "RSS feeds are off.")}
        />
        <Switch
          label="Episode downloads"
          hint="Whether users may download episodes to this server."
          read={async () => (await ok(api.GET("/api/data/download_status", { parseAs: "text" }))).trim() === "true"}
          flip={async () => (await ok(api.POST("/api/data/enable_disable_downloads", { body: {} }))).downloads_enabled}
          said={(on) => (on ? "Episode downloads are on." : "Episode downloads are off.")}
        />
      </section>
      <DownloadFiles />
      <Upkeep />
      <section aria-labelledby="about-h">
        <h2 id="about-h">About this server</h2>
        <ErrorNote error={config.error} />
        {config.data && <p>Version {config.data.version || "unknown"}</p>}
      </section>
    </>
  );
}

function DownloadFiles() {
  const stored = useLoad(() => ok(api.GET("/api/data/download_metadata_settings")), []);
  return (
    <section aria-labelledby="files-h">
      <h2 id="files-h">Downloaded files</h2>
      <ErrorNote error={stored.error} />
      {stored.loading && !stored.data && <Loading what="download settings" />}
      {stored.data && <MetadataForm initial={stored.data} />}
    </section>
  );
}

function MetadataForm({ initial }: { initial: Metadata }) {
  const [v, setV] = useState(initial);
  const form = useAction();
  const box = (key: Exclude<keyof Metadata, "metadata_format">, label: string) => (
    <label class="check">
      <input type="checkbox" checked={v[key]} onChange={(e) => setV({ ...v, [key]: e.currentTarget.checked })} />
      {label}
    </label>
  );
  const submit = (e: Event) => {
    e.preventDefault();
    void form.run(async () => {
      await ok(api.POST("/api/data/download_metadata_settings", { body: v }));
      return "Download settings saved.";
    });
  };
  return (
    <form class="stack" aria-label="Downloaded files" onSubmit={submit}>
      <p class="muted">What the server writes beside each downloaded episode.</p>
      {box("folder_cover", "Podcast cover in the podcast's folder")}
      {box("episode_cover", "Episode cover beside each episode")}
      {box("metadata_sidecar", "Metadata file beside each episode")}
      <label>
        Metadata format
        <select value={v.metadata_format} disabled={!v.metadata_sidecar} onChange={(e) => setV({ ...v, metadata_format: e.currentTarget.value as Format })}>
          <option value="json">JSON</option>
          <option value="xml">XML</option>
          <option value="ffmetadata">FFmetadata</option>
          <option value="both">JSON and XML</option>
        </select>
      </label>
      {box("metadata_subfolder", "Metadata files in a subfolder")}
      <FormEnd of={form} submit="Save download settings" />
    </form>
  );
}

function Upkeep() {
  const form = useAction();
  const job = (fn: () => Promise<string>) => () => void form.run(fn);
  return (
    <section aria-labelledby="upkeep-h">
      <h2 id="upkeep-h">Upkeep</h2>
      <p class="muted">The server does these by itself; start one now when something looks stale.</p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={form.busy}
          onClick={job(async () => (await ok(api.POST("/api/init/startup_tasks", { body: {} }))).detail)}
        >
          Resume unfinished tasks
        </button>
        <button type="button" class="secondary" disabled={form.busy} onClick={job(async () => (await ok(api.GET("/api/data/update_playlists"))).detail)}>
          Create missing playlists
        </button>
        <button type="button" class="secondary" disabled={form.busy} onClick={job(async () => (await ok(api.GET("/api/data/refresh_hosts"))).detail)}>
          Refresh podcast hosts
        </button>
      </div>
      <Outcome of={form} />
    </section>
  );
}
