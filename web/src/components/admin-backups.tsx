/**
 * Admin: backups of the whole server. A download (the server asks for the admin's password or BACKUP_PASSWORD),
 * the files in the server's backup folder, a restore from one of them or from an uploaded file (each replaces
 * all data, so each asks first), and the backup schedule.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../api";
import { ErrorNote, FormEnd, Loading, Outcome, shortDate, useAction, useLoad } from "../ui";
import { Confirm, size } from "./admin-kit";

const REPLACES_ALL =
  "A restore replaces all data of this server (every account, subscription, history and setting) with the backup's. Whatever changed since the backup is lost, and everyone may have to sign in again.";

export function BackupsSection() {
  const files = useLoad(() => ok(api.POST("/api/data/list_backup_files", { body: {} })), []);
  return (
    <>
      <DownloadBackup />
      <section aria-labelledby="files-h">
        <h2 id="files-h">Backup files on the server</h2>
        <BackupFiles files={files.data?.backup_files} error={files.error} loading={files.loading} reload={files.reload} />
      </section>
      <RestoreUpload />
      <Schedule onRan={files.reload} />
    </>
  );
}

function DownloadBackup() {
  const [password, setPassword] = useState("");
  const [gzip, setGzip] = useState(true);
  const [file, setFile] = useState<{ url: string; name: string } | null>(null);
  const form = useAction();
  // The blob stays in memory while its link is offered; let it go when replaced or when the page closes.
  useEffect(() => () => file && URL.revokeObjectURL(file.url), [file]);

  const submit = (e: Event) => {
    e.preventDefault();
    void form.run(async () => {
      const pending = api.POST("/api/data/backup_server", { body: { database_pass: password, gzip }, parseAs: "blob" });
      const blob = await ok(pending);
      const disposition = (await pending).response.headers.get("Content-Disposition") ?? "";
      const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `podcast-server-backup.jsonl${gzip ? ".gz" : ""}`;
      const next = { url: URL.createObjectURL(blob), name };
      setFile(next);
      setPassword("");
      // Saving starts by itself; the link below saves it again.
      const a = document.createElement("a");
      a.href = next.url;
      a.download = name;
      a.click();
      return `Backup ready: ${name} (${size(blob.size)}).`;
    });
  };

  return (
    <section aria-labelledby="download-h">
      <h2 id="download-h">Download a backup</h2>
      <form class="stack" aria-labelledby="download-h" onSubmit={submit}>
        <p class="muted">
          Everything on this server in one file: accounts, subscriptions, history, settings. Keep it somewhere safe: it holds everyone's data.
        </p>
        <label>
          Your password
          <input
            type="password"
            value={password}
            required
            autoComplete="current-password"
            aria-describedby="backup-pw-hint"
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <p class="muted hint" id="backup-pw-hint">
          Or the server's backup password (BACKUP_PASSWORD), if one is set.
        </p>
        <label class="check">
          <input type="checkbox" checked={gzip} onChange={(e) => setGzip(e.currentTarget.checked)} />
          Compress the file (gzip)
        </label>
        <FormEnd of={form} submit="Download backup">
          {file && (
            <a class="button secondary" href={file.url} download={file.name}>
              Save {file.name} again
            </a>
          )}
        </FormEnd>
      </form>
    </section>
  );
}

interface BackupFile {
  filename: string;
  size: number;
  modified_at: string;
}

function BackupFiles({ files, error, loading, reload }: { files?: BackupFile[]; error: string | null; loading: boolean; reload: () => Promise<void> }) {
  const form = useAction();
  const [asking, setAsking] = useState<{ file: string; what: "restore" | "delete" } | null>(null);
  const act = async (file: string, what: "restore" | "delete") => {
    await form.run(async () => {
      if (what === "delete") {
        await ok(api.POST("/api/data/delete_backup_file", { body: { backup_filename: file } }));
        return `Deleted ${file}.`;
      }
      const done = await ok(api.POST("/api/data/restore_backup_file", { body: { backup_filename: file } }));
      return `Restored ${file}: ${done.records} records.`;
    });
    setAsking(null);
    void reload();
  };
  return (
    <>
      <p class="muted">Scheduled backups land in the server's backup folder (BACKUP_DIR).</p>
      <Outcome of={form} />
      <ErrorNote error={error} />
      {loading && !files && <Loading what="backup files" />}
      {files && files.length === 0 && <p>No backup files on the server.</p>}
      {files && files.length > 0 && (
        <ul class="list">
          {files.map((f) => (
            <li key={f.filename} class="card">
              <div class="body">
                <h3 class="addr">{f.filename}</h3>
                <p class="meta muted">
                  {size(f.size)} · {shortDate(f.modified_at)} {new Date(f.modified_at).toLocaleTimeString()}
                </p>
                <div class="actions">
                  <button type="button" class="secondary" aria-label={`Restore ${f.filename}`} onClick={() => setAsking({ file: f.filename, what: "restore" })}>
                    Restore
                  </button>
                  <button type="button" class="danger" aria-label={`Delete ${f.filename}`} onClick={() => setAsking({ file: f.filename, what: "delete" })}>
                    Delete
                  </button>
                </div>
                {asking?.file === f.filename && (
                  <Confirm
                    question={
                      asking.what === "restore" ? `Restore ${f.filename}? ${REPLACES_ALL}` : `Delete ${f.filename} from the server? This cannot be undone.`
                    }
                    yes={asking.what === "restore" ? `Yes, restore ${f.filename}` : `Yes, delete ${f.filename}`}
                    busy={form.busy}
                    onYes={() => void act(f.filename, asking.what)}
                    onNo={() => setAsking(null)}
                  />
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function RestoreUpload() {
  const [file, setFile] = useState<File | null>(null);
  const [sure, setSure] = useState(false);
  const form = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void form.run(async () => {
      const done = await ok(
        api.POST("/api/data/restore_server", {
          body: { backup_file: file.name },
          bodySerializer: () => {
            const data = new FormData();
            data.append("backup_file", file, file.name);
            return data;
          },
        }),
      );
      setSure(false);
      return `Restored ${file.name}: ${done.records} records.`;
    });
  };
  return (
    <section aria-labelledby="restore-h">
      <h2 id="restore-h">Restore from a file</h2>
      <form class="stack" aria-labelledby="restore-h" onSubmit={submit}>
        <p class="warning" id="restore-warning">
          <strong>Warning:</strong> {REPLACES_ALL}
        </p>
        <label>
          Backup file
          <input
            type="file"
            accept=".jsonl,.gz,application/gzip,application/octet-stream"
            required
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </label>
        <label class="check">
          <input type="checkbox" checked={sure} required onChange={(e) => setSure(e.currentTarget.checked)} />I understand that this replaces all data
        </label>
        <Outcome of={form} />
        <div class="actions">
          <button type="submit" class="danger" disabled={form.busy || !file || !sure} aria-describedby="restore-warning">
            Restore from file
          </button>
        </div>
      </form>
    </section>
  );
}

function Schedule({ onRan }: { onRan: () => Promise<void> }) {
  const stored = useLoad(() => ok(api.POST("/api/data/get_scheduled_backup", { body: {} })), []);
  const [cron, setCron] = useState<string | null>(null);
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const form = useAction();
  const s = stored.data;
  const cronValue = cron ?? s?.cron_schedule ?? "0 3 * * *";
  const enabledValue = enabled ?? s?.enabled ?? false;
  const submit = (e: Event) => {
    e.preventDefault();
    void form.run(async () => {
      const done = await ok(api.POST("/api/data/schedule_backup", { body: { cron_schedule: cronValue.trim(), enabled: enabledValue } }));
      await stored.reload();
      await onRan();
      return done.enabled ? `Backups run on the schedule “${done.schedule}”.` : "Scheduled backups are off.";
    });
  };
  return (
    <section aria-labelledby="schedule-h">
      <h2 id="schedule-h">Scheduled backups</h2>
      <ErrorNote error={stored.error} />
      {stored.loading && !s && <Loading what="the schedule" />}
      {s && (
        <form class="stack" aria-labelledby="schedule-h" onSubmit={submit}>
          <label class="check">
            <input type="checkbox" checked={enabledValue} onChange={(e) => setEnabled(e.currentTarget.checked)} />
            Back up on a schedule
          </label>
          <label>
            Schedule (cron expression)
            <input value={cronValue} required maxLength={200} autoComplete="off" aria-describedby="cron-hint" onInput={(e) => setCron(e.currentTarget.value)} />
          </label>
          <p class="muted hint" id="cron-hint">
            Minute, hour, day of month, month, weekday: “0 3 * * *” is every day at 03:00 (server time).
          </p>
          <dl class="facts">
            <dt>Next run</dt>
            <dd>{s.enabled && s.next_run ? new Date(s.next_run).toLocaleString() : "none"}</dd>
            <dt>Last run</dt>
            <dd>{s.last_run ? `${new Date(s.last_run).toLocaleString()}${s.last_file ? ` (${s.last_file})` : ""}` : "never"}</dd>
            {s.last_error && (
              <>
                <dt>Last error</dt>
                <dd class="error">{s.last_error}</dd>
              </>
            )}
          </dl>
          <FormEnd of={form} submit="Save schedule" />
        </form>
      )}
    </section>
  );
}
