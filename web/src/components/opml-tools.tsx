/**
 * OPML import (the document sent as text to import_opml, which subscribes in a background job whose figures
 * import_progress gives) and export (backup_user's OPML, read with the key, offered as a Blob download).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, useAction } from "../ui";

const RUNNING = ["PENDING", "RUNNING", "DOWNLOADING"];

export function OpmlTools({ onImported }: { onImported: () => void }) {
  const file = useRef<HTMLInputElement>(null);
  const importing = useAction();
  const exporting = useAction();
  const [status, setStatus] = useState("");
  const alive = useRef(true);
  useEffect(() => () => void (alive.current = false), []);

  async function watch(user_id: number) {
    // The job answers at once; its figures move as feeds are subscribed.
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      if (!alive.current) return;
      const p = await ok(api.GET("/api/data/import_progress/{user_id}", { params: { path: { user_id } } }));
      if (!RUNNING.includes(p.status)) {
        const failed = p.failed.length
          ? `, ${p.failed.length} failed (${p.failed
              .map((f) => f.url)
              .slice(0, 5)
              .join(", ")})`
          : "";
        setStatus(`Import finished: ${p.imported} added, ${p.skipped} already there${failed}.`);
        onImported();
        return;
      }
      // The list is read again once at the end: 1,000 feeds would otherwise reload it every second.
      setStatus(`Importing: ${p.current} of ${p.total}…`);
    }
  }

  const doImport = (ev: Event) => {
    ev.preventDefault();
    if (importing.busy) return;
    const chosen = file.current?.files?.[0];
    if (!chosen) {
      void importing.run(() => Promise.reject(new Error("Choose an OPML file first.")));
      return;
    }
    void importing.run(async () => {
      const user_id = me().user_id;
      const opml = await chosen.text();
      const res = await ok(api.POST("/api/data/import_opml", { body: { user_id, opml } }));
      const rejected = res.rejected.length ? ` (${res.rejected.length} entries are not feed addresses)` : "";
      setStatus(`Importing ${res.total} feeds${rejected}…`);
      if (file.current) file.current.value = "";
      await watch(user_id);
    });
  };

  const doExport = () =>
    !exporting.busy &&
    exporting.run(async () => {
      const text = await ok(api.POST("/api/data/backup_user", { body: { user_id: me().user_id }, parseAs: "text" }));
      const url = URL.createObjectURL(new Blob([text], { type: "text/x-opml;charset=utf-8" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = "podcasts.opml";
      document.body.append(a);
      a.click();
      a.remove();
      // The browser has started the download by now.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    });

  return (
    <section aria-labelledby="opml-h">
      <h2 id="opml-h">Import and export</h2>
      <form class="stack opml" onSubmit={doImport}>
        <label>
          OPML file
          <input ref={file} type="file" accept=".opml,.xml,text/x-opml,text/xml,application/xml" />
        </label>
        <div class="actions">
          <button type="submit">Import</button>
          <button type="button" class="secondary" onClick={() => void doExport()}>
            Export OPML
          </button>
        </div>
      </form>
      <p role="status" class="muted">
        {status}
      </p>
      <ErrorNote error={importing.error ?? exporting.error} />
    </section>
  );
}
