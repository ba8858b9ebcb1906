/**
 * Settings: "Phones and apps". This server is itself a gPodder and Nextcloud (gpoddersync) sync server: what
 * to type into AntennaPod, gPodder or Kasts, the app passwords for them, the devices that synced, the
 * sync switch of the account, and notifications of new episodes.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, Loading, Outcome, shortDate, useAction, useLoad } from "../ui";
import { KeyList, SecretForm, useKeys } from "./settings-keys";
import { NotificationSettings } from "./settings-notifications";

export function PhonesSection() {
  const { user_id, username } = me();
  const origin = location.origin;
  const mfa = useLoad(() => ok(api.GET("/api/data/check_mfa_enabled/{user_id}", { params: { path: { user_id } } })), [user_id]);
  return (
    <section aria-labelledby="phones-heading">
      <h2 id="phones-heading">Phones and apps</h2>
      <p>Podcast apps keep their subscriptions and play positions in step with this server, and so with every other app you use with it.</p>

      <h3>Server address</h3>
      <p class="server-address">
        <code>{origin}</code>
      </p>
      <ul class="steps">
        <li>
          <strong>gPodder sync</strong> (AntennaPod: Settings → Synchronization → gpodder.net; gPodder: Preferences → gpodder.net; Kasts: Settings →
          Synchronization → gpodder.net with a custom server): type the address above, no path, your username <code>{username}</code> and your password or an
          app password, then choose or create a device.
        </li>
        <li>
          <strong>Nextcloud sync</strong> (AntennaPod's "Nextcloud" option and other apps of the gpoddersync app): type only the address above. The app opens
          this server's sign-in page in your browser; sign in there and press "Grant access". The app gets an app password of its own.
        </li>
      </ul>
      {mfa.data?.mfa_enabled && (
        <p class="note">Two-factor authentication is on, so your password no longer opens sync for apps: give gPodder apps an app password.</p>
      )}
      <SyncSwitch />

      <h3>App passwords</h3>
      <AppPasswords />

      <h3>Devices that synced</h3>
      <Devices />

      <h3>Notifications of new episodes</h3>
      <NotificationSettings />
    </section>
  );
}

function SyncSwitch() {
  const user_id = me().user_id;
  const state = useLoad(() => ok(api.GET("/api/data/user/sync_server/{user_id}", { params: { path: { user_id } } })), [user_id]);
  const action = useAction();
  const flip = (on: boolean) =>
    action.run(async () => {
      await ok(api.PUT("/api/data/user/sync_server", { body: { user_id, sync_server: on } }));
      await state.reload();
      return on ? "Phones and apps can sync with your account." : "Sync is off for your account. App passwords stay and work again when you switch it back on.";
    });
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return null;
  if (!state.data.server_enabled) return <p class="note">The sync server is switched off on this server: ask its admin.</p>;
  return (
    <>
      <label class="check">
        <input type="checkbox" checked={state.data.sync_server} disabled={action.busy} onChange={(e) => void flip(e.currentTarget.checked)} />
        Let phones and apps sync with my account
      </label>
      <Outcome of={action} />
    </>
  );
}

function AppPasswords() {
  const user_id = me().user_id;
  const keys = useKeys();
  const [name, setName] = useState("");
  const make = async () => {
    const p = await ok(api.POST("/api/data/create_app_password", { body: { user_id, ...(name.trim() ? { name: name.trim() } : {}) } }));
    setName("");
    await keys.reload();
    return { label: `App password for ${p.name}`, secret: p.app_password, note: "Type it into the app now, with your username: it is not shown again." };
  };
  return (
    <>
      <p>An app password opens only sync, never this web app or the API: give each app its own, and delete it when you stop using the app.</p>
      <SecretForm submit="Create app password" make={make}>
        <label>
          Name of the app
          <input maxLength={100} aria-describedby="app-name-hint" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <p id="app-name-hint" class="muted hint">
          For example "AntennaPod on my phone", to know later which one to delete.
        </p>
      </SecretForm>
      <KeyList keys={keys} only="app" empty="No app passwords yet." />
    </>
  );
}

function Devices() {
  const devices = useLoad(() => ok(api.GET("/api/podsync/devices")), []);
  if (devices.loading && !devices.data) return <Loading what="devices" />;
  if (devices.error) return <p class="muted">No devices to show: {devices.error}</p>;
  const list = devices.data ?? [];
  if (list.length === 0) return <p class="muted">No phone or app has synced yet.</p>;
  return (
    <ul class="list">
      {list.map((d) => (
        <li class="card" key={d.id}>
          <div class="body">
            <strong>{d.caption || d.name || d.id}</strong>
            <div class="muted">
              {d.type}, {d.subscriptions} {d.subscriptions === 1 ? "subscription" : "subscriptions"}
              {d.last_sync ? `, last synced ${shortDate(d.last_sync)}` : ""}
              {d.caption && d.caption !== d.id ? ` (device id ${d.id})` : ""}
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}
