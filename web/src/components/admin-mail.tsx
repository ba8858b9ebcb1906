/**
 * Admin: the server's outgoing mail (password reset codes). The stored SMTP password never comes back from the
 * server: an empty password field keeps it. "Send test e-mail" tries what the form holds now, saved or not.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../api";
import { session } from "../session";
import { ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";

interface MailForm {
  server_name: string;
  server_port: string;
  from_email: string;
  encryption: string;
  auth_required: boolean;
  email_username: string;
  email_password: string;
}

export function MailSection() {
  const stored = useLoad(() => ok(api.GET("/api/data/get_email_settings")), []);
  return (
    <section aria-labelledby="mail-h">
      <h2 id="mail-h">Mail</h2>
      <p class="muted">The server sends password reset codes by e-mail through this SMTP server.</p>
      <ErrorNote error={stored.error} />
      {stored.loading && !stored.data && <Loading what="mail settings" />}
      {stored.data && (
        <MailSettings
          configured={!!stored.data.ServerName}
          initial={{
            server_name: stored.data.ServerName,
            server_port: String(stored.data.ServerPort || 587),
            from_email: stored.data.FromEmail,
            encryption: stored.data.Encryption || "StartTLS",
            auth_required: !!stored.data.AuthRequired,
            email_username: stored.data.Username,
            email_password: "",
          }}
        />
      )}
    </section>
  );
}

function MailSettings({ initial, configured }: { initial: MailForm; configured: boolean }) {
  const [v, setV] = useState(initial);
  const [saved, setSaved] = useState(configured);
  const [to, setTo] = useState("");
  const save = useAction();
  const test = useAction();
  const text = (key: keyof MailForm) => ({
    value: v[key] as string,
    onInput: (e: { currentTarget: HTMLInputElement }) => setV({ ...v, [key]: e.currentTarget.value }),
  });

  // The test goes to the admin's own address unless they type another.
  useEffect(() => {
    const id = session.value?.user_id;
    if (id)
      ok(api.GET("/api/data/my_user_info/{user_id}", { params: { path: { user_id: id } } })).then(
        (me) => setTo((t) => t || me.email),
        () => undefined,
      );
  }, []);

  const settings = () => ({
    server_name: v.server_name.trim(),
    server_port: Number(v.server_port),
    from_email: v.from_email.trim(),
    send_mode: "SMTP",
    encryption: v.encryption,
    auth_required: v.auth_required,
    email_username: v.auth_required ? v.email_username.trim() : "",
    email_password: v.email_password,
  });

  const submit = async (e: Event) => {
    e.preventDefault();
    const done = await save.run(async () => {
      await ok(api.POST("/api/data/save_email_settings", { body: { email_settings: settings() } }));
      return "Mail settings saved.";
    });
    if (done) {
      setSaved(true);
      setV({ ...v, email_password: "" });
    }
  };
  const sendTest = (e: Event) => {
    e.preventDefault();
    void test.run(async () => {
      // Fields left empty fall back to the saved settings.
      const given = Object.fromEntries(Object.entries(settings()).filter(([, x]) => x !== "" && x !== 0 && !Number.isNaN(x)));
      const answer = await ok(api.POST("/api/data/send_test_email", { body: { ...given, to_email: to.trim() } }));
      return `${answer.email_status}: a test mail went to ${to.trim()}.`;
    });
  };

  return (
    <>
      {!saved && <p>Mail is not set up yet: people cannot reset a forgotten password by e-mail.</p>}
      <form class="stack" aria-label="Mail settings" onSubmit={(e) => void submit(e)}>
        <label>
          SMTP host
          <input {...text("server_name")} required maxLength={255} autoComplete="off" placeholder="smtp.example.org" />
        </label>
        <label>
          Port
          <input type="number" {...text("server_port")} required min={1} max={65535} inputMode="numeric" />
        </label>
        <label>
          Encryption
          <select value={v.encryption} onChange={(e) => setV({ ...v, encryption: e.currentTarget.value })}>
            <option value="none">None</option>
            <option value="SSL/TLS">SSL/TLS (usually port 465)</option>
            <option value="StartTLS">StartTLS (usually port 587)</option>
          </select>
        </label>
        <label>
          From address
          <input type="email" {...text("from_email")} required maxLength={255} autoComplete="off" placeholder="podcasts@example.org" />
        </label>
        <label class="check">
          <input type="checkbox" checked={v.auth_required} onChange={(e) => setV({ ...v, auth_required: e.currentTarget.checked })} />
          The SMTP server needs a sign-in
        </label>
        {v.auth_required && (
          <>
            <label>
              SMTP user
              <input {...text("email_username")} maxLength={255} autoComplete="off" />
            </label>
            <label>
              SMTP password
              <input type="password" {...text("email_password")} maxLength={1024} autoComplete="new-password" aria-describedby="smtp-pw-hint" />
            </label>
            <p class="muted hint" id="smtp-pw-hint">
              The saved password is never shown. Leave this empty to keep it.
            </p>
          </>
        )}
        <FormEnd of={save} submit="Save mail settings" />
      </form>
      <h3>Test</h3>
      <form class="stack" aria-label="Test mail" onSubmit={sendTest}>
        <label>
          Send a test to
          <input type="email" value={to} required maxLength={255} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
        <p class="muted hint">The test uses the settings in the form above, saved or not.</p>
        <Outcome of={test} />
        <div class="actions">
          <button type="submit" class="secondary" disabled={test.busy}>
            Send test e-mail
          </button>
        </div>
      </form>
    </>
  );
}
