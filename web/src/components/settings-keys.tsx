/**
 * Settings: the person's API keys (their sign-ins, keys for scripts, RSS keys, app passwords): each shown by
 * its last four characters, deleted one by one; a new key is shown once, right after it is made.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, ok, type paths } from "../api";
import { me, session } from "../session";
import { ErrorNote, Loading, Outcome, shortDate, useAction, useLoad, type Loaded } from "../ui";

type KeyInfo = paths["/api/data/get_api_info/{user_id}"]["get"]["responses"][200]["content"]["application/json"]["api_info"][number];

/** The caller's own keys (an admin's answer holds every user's: those are the admin pages' business). */
export function useKeys(): Loaded<KeyInfo[]> {
  const user_id = me().user_id;
  return useLoad(async () => {
    const all = await ok(api.GET("/api/data/get_api_info/{user_id}", { params: { path: { user_id } } }));
    return all.api_info.filter((k) => k.userid === user_id);
  }, [user_id]);
}

function kindText(k: KeyInfo): string {
  switch (k.kind) {
    case "login":
      return k.lastfourdigits === session.value?.key.slice(-4) ? "Sign-in of this browser" : "Sign-in";
    case "rss":
      return "RSS feed key";
    case "app":
      return k.name ? `App password: ${k.name}` : "App password";
    default:
      return k.rssonly ? "API key (RSS feeds only)" : "API key";
  }
}

/** Keys with a Delete button each, named by the key's last four characters. */
export function KeyList({ keys, empty, only }: { keys: Loaded<KeyInfo[]>; empty: string; only?: string }) {
  const action = useAction();
  const shown = keys.data?.filter((k) => !only || k.kind === only);
  const remove = (k: KeyInfo) =>
    action.run(async () => {
      await ok(api.DELETE("/api/data/delete_api_key", { body: { api_id: k.apikeyid } }));
      await keys.reload();
      return `Deleted the key ending in ${k.lastfourdigits}.`;
    });
  return (
    <>
      {keys.loading && !keys.data && <Loading what="keys" />}
      <ErrorNote error={keys.error} />
      {shown && shown.length === 0 && <p class="muted">{empty}</p>}
      {shown && shown.length > 0 && (
        <ul class="list">
          {shown.map((k) => (
            <li class="card key" key={k.apikeyid}>
              <div class="body">
                <strong>{kindText(k)}</strong>
                <div class="muted">
                  Ends in <code>{k.lastfourdigits}</code>, made {shortDate(k.created)}
                </div>
              </div>
              <button type="button" class="danger" disabled={action.busy} onClick={() => void remove(k)}>
                Delete<span class="visually-hidden"> key ending in {k.lastfourdigits}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <Outcome of={action} />
    </>
  );
}

interface Secret {
  label: string;
  secret: string;
  /** The words to keep it. */
  note: string;
}

/** A secret shown once, with the words to keep it. */
function NewSecret({ label, secret, note }: Secret) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="new-secret">
      <p>
        {label}: <code class="secret">{secret}</code>
      </p>
      <p>{note}</p>
      {navigator.clipboard && (
        <button
          type="button"
          class="secondary"
          onClick={() =>
            void navigator.clipboard.writeText(secret).then(
              () => setCopied(true),
              () => undefined,
            )
          }
        >
          {copied ? "Copied" : "Copy"}
        </button>
      )}
    </div>
  );
}

/**
 * A form that makes a secret (an API key, an app password) and shows it once, below the form: `make` asks the
 * server (and reloads what lists the keys).
 */
export function SecretForm({ submit, make, children }: { submit: string; make: () => Promise<Secret>; children: ComponentChildren }) {
  const [made, setMade] = useState<Secret | null>(null);
  const action = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    setMade(null);
    void action.run(async () => setMade(await make()));
  };
  return (
    <>
      <form class="stack" onSubmit={create}>
        {children}
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {submit}
          </button>
        </div>
      </form>
      <Outcome of={action} done={made && <NewSecret {...made} />} />
    </>
  );
}

export function KeysSection() {
  const user_id = me().user_id;
  const keys = useKeys();
  const [rssOnly, setRssOnly] = useState(false);
  const make = async () => {
    const k = await ok(api.POST("/api/data/create_api_key", { body: { user_id, rssonly: rssOnly } }));
    await keys.reload();
    return { label: "Your new API key", secret: k.api_key, note: "Copy it now and keep it somewhere safe: it is not shown again." };
  };
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p>
        A key lets a script or another app use this server as you (header <code>Api-Key</code>). Every sign-in in a browser is a key too; deleting it signs that
        browser out.
      </p>
      <SecretForm submit="Create API key" make={make}>
        <label class="check">
          <input type="checkbox" checked={rssOnly} onChange={(e) => setRssOnly(e.currentTarget.checked)} />
          Only for reading RSS feeds
        </label>
      </SecretForm>
      <h3>Your keys</h3>
      <KeyList keys={keys} empty="You have no keys." />
    </section>
  );
}
