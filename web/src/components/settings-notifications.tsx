/**
 * Settings: where new episodes are announced (ntfy, Gotify or a webhook), saved per service, and a test
 * message to see that it arrives. Passwords and tokens are never shown back: the server says only whether
 * one is stored, and an empty field keeps it.
 */
import { useState } from "preact/hooks";
import { api, ok, type paths } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, Outcome, useAction, useLoad } from "../ui";

type Saved = paths["/api/data/user/notification_settings"]["get"]["responses"][200]["content"]["application/json"]["settings"][number];
type Body = NonNullable<paths["/api/data/user/notification_settings"]["put"]["requestBody"]>["content"]["application/json"];
type Platform = "ntfy" | "gotify" | "http";

interface Field {
  /** The field of the request (and, but for secrets, of the answer). */
  key: string;
  label: string;
  type?: "url" | "password";
  /** For secrets: the *_set flag of the answer. */
  stored?: string;
  placeholder?: string;
}

const PLATFORMS: { id: Platform; name: string; fields: Field[] }[] = [
  {
    id: "ntfy",
    name: "ntfy",
    fields: [
      { key: "notifa_topic", label: "ntfy topic" },
      { key: "notifa_server_url", label: "ntfy server", type: "url", placeholder: "https://ntfy.sh" },
      { key: "notifa_username", label: "ntfy username" },
      { key: "notifa_password", label: "ntfy password", type: "password", stored: "notifa_password_set" },
      { key: "notifa_access_token", label: "ntfy access token", type: "password", stored: "notifa_access_token_set" },
    ],
  },
  {
    id: "gotify",
    name: "Gotify",
    fields: [
      { key: "notifb_url", label: "Gotify server", type: "url", placeholder: "https://gotify.example.org" },
      { key: "notifb_token", label: "Gotify app token", type: "password", stored: "notifb_token_set" },
    ],
  },
  {
    id: "http",
    name: "Webhook",
    fields: [
      { key: "http_url", label: "Webhook address", type: "url", placeholder: "https://example.org/hook" },
      { key: "http_token", label: "Bearer token", type: "password", stored: "http_token_set" },
    ],
  },
];

export function NotificationSettings() {
  const user_id = me().user_id;
  const saved = useLoad(() => ok(api.GET("/api/data/user/notification_settings", { params: { query: { user_id } } })).then((r) => r.settings), [user_id]);
  const [platform, setPlatform] = useState<Platform>("ntfy");
  if (saved.loading && !saved.data) return <Loading what="notification settings" />;
  if (saved.error) return <ErrorNote error={saved.error} />;
  const current = saved.data?.find((s) => s.platform === platform);
  return (
    <div class="stack">
      <p>Turn announcements on for a podcast on its page; they go to every service that is on here.</p>
      <label>
        Service
        <select value={platform} onChange={(e) => setPlatform(e.currentTarget.value as Platform)}>
          {PLATFORMS.map((p) => (
            <option value={p.id} key={p.id}>
              {p.name}
              {saved.data?.find((s) => s.platform === p.id)?.enabled ? " (on)" : ""}
            </option>
          ))}
        </select>
      </label>
      {/* A new form per service, so that one service's typing never leaks into another's. */}
      <PlatformForm key={platform} platform={platform} saved={current} onSaved={saved.reload} />
    </div>
  );
}

function PlatformForm({ platform, saved, onSaved }: { platform: Platform; saved: Saved | undefined; onSaved: () => Promise<void> }) {
  const user_id = me().user_id;
  const spec = PLATFORMS.find((p) => p.id === platform)!;
  const [enabled, setEnabled] = useState(saved?.enabled ?? true);
  const [method, setMethod] = useState(saved?.http_method ?? "POST");
  // Read by the fields' names; every value of the answer is a string, a flag or null.
  const was: Record<string, string | boolean | null> | undefined = saved;
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(spec.fields.map((f) => [f.key, f.stored ? "" : String(was?.[f.key] ?? "")])),
  );
  const save = useAction();
  const test = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    // One outcome line for both buttons: the newer action's replaces the older's.
    test.reset();
    void save.run(async () => {
      const body: Record<string, unknown> = { user_id, platform, enabled };
      // An empty secret keeps the stored one; an empty plain field clears it.
      for (const f of spec.fields) body[f.key] = f.stored ? values[f.key] || undefined : values[f.key].trim() || null;
      if (platform === "http") body.http_method = method;
      await ok(api.PUT("/api/data/user/notification_settings", { body: body as Body }));
      await onSaved();
      return `${spec.name} settings saved.`;
    });
  };
  const sendTest = () => {
    save.reset();
    void test.run(async () => {
      const r = await ok(api.POST("/api/data/user/test_notification", { body: { user_id, platform } }));
      return `${r.detail}. Check that it arrived.`;
    });
  };
  return (
    <form class="stack" onSubmit={submit}>
      {spec.fields.map((f) => (
        <label key={f.key}>
          {f.label}
          {f.type === "password" ? (
            <input
              type="password"
              autocomplete="new-password"
              placeholder={f.stored && was?.[f.stored] ? "Stored: leave empty to keep" : undefined}
              value={values[f.key]}
              onInput={(e) => setValues({ ...values, [f.key]: e.currentTarget.value })}
            />
          ) : (
            <input
              type={(f.type === "url" ? "url" : "text") as "text"}
              autocomplete="off"
              placeholder={f.placeholder}
              value={values[f.key]}
              onInput={(e) => setValues({ ...values, [f.key]: e.currentTarget.value })}
            />
          )}
        </label>
      ))}
      {platform === "http" && (
        <label>
          Method
          <select value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
            <option>POST</option>
            <option>PUT</option>
            <option>GET</option>
          </select>
        </label>
      )}
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        Send notifications with {spec.name}
      </label>
      <Outcome of={{ error: save.error ?? test.error, done: save.done ?? test.done }} />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          Save
        </button>
        <button type="button" class="secondary" disabled={test.busy || !saved} onClick={sendTest}>
          Send a test notification
        </button>
      </div>
    </form>
  );
}
