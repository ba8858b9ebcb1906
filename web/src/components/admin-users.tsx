/**
 * Admin: the accounts of the server. The list (get_user_info answers every account at once, so the page shows
 * them a page at a time and filters in place), admin rights, edits, removal after a confirmation, and new accounts.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ok } from "../api";
import { session, setSession } from "../session";
import { type Action, ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";
import { Confirm } from "./admin-kit";

interface User {
  userid: number;
  fullname: string;
  username: string;
  email: string;
  isadmin: 0 | 1;
}

const PAGE = 50;

export function UsersSection() {
  const users = useLoad(() => ok(api.GET("/api/data/get_user_info")), []);
  const [filter, setFilter] = useState("");
  const [shown, setShown] = useState(PAGE);
  const list = useAction();
  const needle = filter.trim().toLowerCase();
  const matching = (users.data ?? []).filter((u) => !needle || [u.username, u.fullname, u.email].some((v) => v.toLowerCase().includes(needle)));

  return (
    <>
      <section aria-labelledby="users-h">
        <h2 id="users-h">Users</h2>
        <label>
          Find a user
          <input type="search" value={filter} onInput={(e) => (setFilter(e.currentTarget.value), setShown(PAGE))} />
        </label>
        <Outcome of={list} />
        <ErrorNote error={users.error} />
        {users.loading && !users.data && <Loading what="users" />}
        {users.data && (
          <>
            <p class="muted">{needle ? `${matching.length} of ${users.data.length} users match.` : `${users.data.length} users.`}</p>
            <ul class="list users">
              {matching.slice(0, shown).map((u) => (
                <UserRow key={u.userid} user={u} list={list} reload={users.reload} />
              ))}
            </ul>
            {matching.length > shown && (
              <div class="actions">
                <button type="button" class="secondary" onClick={() => setShown(shown + PAGE)}>
                  Show more users
                </button>
              </div>
            )}
          </>
        )}
      </section>
      <AddUser onAdded={users.reload} />
    </>
  );
}

function UserRow({ user, list, reload }: { user: User; list: Action; reload: () => Promise<void> }) {
  const [mode, setMode] = useState<"view" | "edit" | "remove">("view");
  const self = user.userid === session.value?.user_id;
  const name = user.username;

  // The box shows the wanted state at once (a re-render while the request runs must not flip it back).
  const [admin, setAdminBox] = useState(!!user.isadmin);
  useEffect(() => setAdminBox(!!user.isadmin), [user.isadmin]);
  const setAdmin = async (want: boolean) => {
    setAdminBox(want);
    const done = await list.run(async () => {
      await ok(api.PUT("/api/data/user/set_isadmin", { body: { user_id: user.userid, isadmin: want } }));
      await reload();
      return want ? `${name} now has admin rights.` : `${name} no longer has admin rights.`;
    });
    if (!done) setAdminBox(!want);
  };
  const remove = () =>
    list.run(async () => {
      await ok(api.DELETE("/api/data/user/delete/{user_id}", { params: { path: { user_id: user.userid } } }));
      await reload();
      return `Removed ${name}.`;
    });

  return (
    <li class="card user">
      <div class="body">
        <h3>
          {name}
          {self && <span class="muted"> (you)</span>}
        </h3>
        <p class="meta">
          {user.fullname} · <span class="addr">{user.email}</span>
          {user.isadmin ? " · admin" : ""}
        </p>
        <div class="actions">
          <label class="check">
            <input type="checkbox" checked={admin} disabled={self || list.busy} onChange={(e) => void setAdmin(e.currentTarget.checked)} />
            Admin rights<span class="visually-hidden"> {name}</span>
          </label>
          <button
            type="button"
            class="secondary"
            aria-label={`Edit ${name}`}
            aria-expanded={mode === "edit"}
            onClick={() => setMode(mode === "edit" ? "view" : "edit")}
          >
            Edit
          </button>
          {!self && (
            <button type="button" class="danger" aria-label={`Remove ${name}`} onClick={() => setMode("remove")}>
              Remove
            </button>
          )}
        </div>
        {self && <p class="muted hint">Your own rights and account are changed by another admin.</p>}
        {mode === "remove" && (
          <Confirm
            question={`Remove ${name} (${user.email})? Their subscriptions, history, downloads and keys go too. This cannot be undone.`}
            yes={`Yes, remove ${name}`}
            busy={list.busy}
            onYes={() => void remove().then((done) => done || setMode("view"))}
            onNo={() => setMode("view")}
          />
        )}
        {mode === "edit" && <EditUser user={user} onClose={() => setMode("view")} onSaved={(text) => (setMode("view"), void reload(), list.say(text))} />}
      </div>
    </li>
  );
}

function EditUser({ user, onClose, onSaved }: { user: User; onClose: () => void; onSaved: (text: string) => void }) {
  const [username, setUsername] = useState(user.username);
  const [fullname, setFullname] = useState(user.fullname);
  const [email, setEmail] = useState(user.email);
  const [password, setPassword] = useState("");
  const form = useAction();
  const id = `edit-${user.userid}`;

  const save = async (e: Event) => {
    e.preventDefault();
    let changed = false;
    const done = await form.run(async () => {
      const user_id = user.userid;
      if (fullname.trim() !== user.fullname) {
        await ok(api.PUT("/api/data/set_fullname/{user_id}", { params: { path: { user_id } }, body: { new_name: fullname.trim() } }));
        changed = true;
      }
      if (email.trim().toLowerCase() !== user.email) {
        await ok(api.PUT("/api/data/user/set_email", { body: { user_id, new_email: email.trim() } }));
        changed = true;
      }
      if (username.trim().toLowerCase() !== user.username) {
        await ok(api.PUT("/api/data/user/set_username", { body: { user_id, new_username: username.trim() } }));
        changed = true;
        // The header shows the signed-in person's name.
        const s = session.value;
        if (s && s.user_id === user_id) setSession({ ...s, username: username.trim().toLowerCase() });
      }
      if (password) {
        await ok(api.PUT("/api/data/set_password/{user_id}", { params: { path: { user_id } }, body: { hash_pw: password } }));
        changed = true;
      }
      return changed ? `Saved ${username.trim().toLowerCase()}.` : "Nothing to change.";
    });
    if (done && changed) onSaved(`Saved ${username.trim().toLowerCase()}.`);
  };

  return (
    <form class="stack sub-form" aria-label={`Edit ${user.username}`} onSubmit={(e) => void save(e)}>
      <label>
        Username
        <input value={username} required maxLength={64} autoComplete="off" onInput={(e) => setUsername(e.currentTarget.value)} />
      </label>
      <label>
        Full name
        <input value={fullname} required maxLength={255} autoComplete="off" onInput={(e) => setFullname(e.currentTarget.value)} />
      </label>
      <label>
        E-mail
        <input type="email" value={email} required maxLength={255} autoComplete="off" onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <label>
        New password
        <input type="password" value={password} autoComplete="new-password" aria-describedby={`${id}-pw`} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      <p class="muted hint" id={`${id}-pw`}>
        Leave empty to keep the current password.
      </p>
      <Outcome of={form} />
      <div class="actions">
        <button type="submit" disabled={form.busy} aria-label={`Save ${user.username}`}>
          Save
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function AddUser({ onAdded }: { onAdded: () => Promise<void> }) {
  const empty = { username: "", fullname: "", email: "", password: "" };
  const [v, setV] = useState(empty);
  const form = useAction();
  const field = (key: keyof typeof empty) => ({
    value: v[key],
    onInput: (e: { currentTarget: HTMLInputElement }) => setV({ ...v, [key]: e.currentTarget.value }),
  });

  const add = async (e: Event) => {
    e.preventDefault();
    const username = v.username.trim().toLowerCase();
    const done = await form.run(async () => {
      await ok(
        api.POST("/api/data/add_user", { body: { username: v.username.trim(), fullname: v.fullname.trim(), email: v.email.trim(), hash_pw: v.password } }),
      );
      return `Added ${username}. They can sign in with this username and password now.`;
    });
    if (done) {
      setV(empty);
      void onAdded();
    }
  };

  return (
    <section aria-labelledby="add-user-h">
      <h2 id="add-user-h">Add user</h2>
      <form class="stack" aria-labelledby="add-user-h" onSubmit={(e) => void add(e)}>
        <label>
          Username
          <input {...field("username")} required maxLength={64} autoComplete="off" />
        </label>
        <label>
          Full name
          <input {...field("fullname")} required maxLength={255} autoComplete="off" />
        </label>
        <label>
          E-mail
          <input type="email" {...field("email")} required maxLength={255} autoComplete="off" />
        </label>
        <label>
          Password
          <input type="password" {...field("password")} required autoComplete="new-password" />
        </label>
        <FormEnd of={form} submit="Add user" />
      </form>
    </section>
  );
}
