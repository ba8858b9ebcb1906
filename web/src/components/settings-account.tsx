/** Settings: the account's full name, e-mail and password; the theme (light, dark or the system's). */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { showTheme, themeOf, type Theme } from "../theme";
import { ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";

export function AccountSection() {
  const user_id = me().user_id;
  const info = useLoad(() => ok(api.GET("/api/data/my_user_info/{user_id}", { params: { path: { user_id } } })), [user_id]);
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      {info.loading && !info.data && <Loading what="your account" />}
      <ErrorNote error={info.error} />
      {info.data && (
        <div class="stack">
          <p>
            Username: <strong>{info.data.username}</strong>
            {info.data.isadmin ? " (admin)" : ""}
          </p>
          <OneField
            label="Full name"
            initial={info.data.fullname}
            autocomplete="name"
            save={(v) => ok(api.PUT("/api/data/set_fullname/{user_id}", { params: { path: { user_id } }, body: { new_name: v } }))}
            saved="Full name saved."
          />
          <OneField
            label="E-mail"
            type="email"
            initial={info.data.email}
            autocomplete="email"
            save={(v) => ok(api.PUT("/api/data/user/set_email", { body: { user_id, new_email: v } }))}
            saved="E-mail saved."
          />
          <PasswordForm />
        </div>
      )}
    </section>
  );
}

/** One value with its own Save button: a change of the name never sends the e-mail along. */
function OneField(props: {
  label: string;
  initial: string;
  type?: "email" | "text";
  autocomplete: string;
  save: (v: string) => Promise<unknown>;
  saved: string;
}) {
  const [value, setValue] = useState(props.initial);
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await props.save(value.trim());
      return props.saved;
    });
  };
  const input = {
    autocomplete: props.autocomplete,
    required: true,
    value,
    onInput: (e: { currentTarget: HTMLInputElement }) => setValue(e.currentTarget.value),
  };
  return (
    <form class="stack card-form" onSubmit={submit}>
      <label>
        {props.label}
        {/* One element per type: Preact's typings tie an input's other attributes to its type. */}
        {props.type === "email" ? <input type="email" {...input} /> : <input type="text" {...input} />}
      </label>
      <FormEnd of={action} submit={`Save ${props.label.toLowerCase()}`} />
    </form>
  );
}

function PasswordForm() {
  const user_id = me().user_id;
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await ok(api.PUT("/api/data/set_password/{user_id}", { params: { path: { user_id } }, body: { hash_pw: next, current_password: current } }));
      setCurrent("");
      setNext("");
      return "Password changed. Apps that sign in with your password need the new one.";
    });
  };
  return (
    <form class="stack card-form" onSubmit={submit} aria-labelledby="password-heading">
      <h3 id="password-heading">Password</h3>
      <label>
        Current password
        <input type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent(e.currentTarget.value)} />
      </label>
      <label>
        New password
        <input
          type="password"
          autocomplete="new-password"
          aria-describedby="account-password-hint"
          required
          value={next}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </label>
      <p id="account-password-hint" class="muted hint">
        At least 8 characters.
      </p>
      <FormEnd of={action} submit="Change password" />
    </form>
  );
}

const THEMES: [Theme, string][] = [
  ["light", "Light"],
  ["dark", "Dark"],
  ["auto", "Auto"],
];

export function ThemeSection() {
  const user_id = me().user_id;
  const stored = useLoad(() => ok(api.GET("/api/data/get_theme/{user_id}", { params: { path: { user_id } } })).then((t) => themeOf(t.theme)), [user_id]);
  const [picked, setPicked] = useState<Theme | null>(null);
  const action = useAction();
  const theme = picked ?? stored.data;
  const choose = (t: Theme) => {
    setPicked(t);
    // Shown at once; the server keeps it for the next sign-in on any device.
    showTheme(t);
    void action.run(async () => {
      await ok(api.PUT("/api/data/user/set_theme", { body: { user_id, new_theme: t } }));
      return "Theme saved.";
    });
  };
  return (
    <section aria-labelledby="theme-heading">
      <h2 id="theme-heading">Theme</h2>
      <ErrorNote error={stored.error} />
      <fieldset role="radiogroup" aria-labelledby="theme-legend" aria-describedby="theme-hint">
        <legend id="theme-legend">Theme</legend>
        {THEMES.map(([t, name]) => (
          <label class="check" key={t}>
            <input type="radio" name="theme" value={t} checked={theme === t} onChange={() => choose(t)} />
            {name}
          </label>
        ))}
      </fieldset>
      <p id="theme-hint" class="muted">
        Auto follows the light or dark setting of your device.
      </p>
      <Outcome of={action} />
    </section>
  );
}
