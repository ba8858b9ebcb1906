/**
 * Admin: how people get in. Self-service registration, and the OIDC providers whose buttons the sign-in page
 * shows (add, change, remove). The listing never carries a provider's client secret, so the change form leaves
 * it empty and the server keeps the stored one.
 */
import { useState } from "preact/hooks";
import { api, ok, type paths } from "../api";
import { type Action, ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";
import { Confirm, Switch } from "./admin-kit";

type Provider = paths["/api/data/list_oidc_providers"]["get"]["responses"]["200"]["content"]["application/json"]["providers"][number];

export function SignInSection() {
  return (
    <>
      <section aria-labelledby="registration-h">
        <h2 id="registration-h">Registration</h2>
        <Switch
          label="Self-service registration"
          hint="When on, anyone who can reach this server can create an account on the sign-in page."
          read={async () => (await ok(api.GET("/api/data/admin_self_service_status"))).status}
          flip={async () => (await ok(api.POST("/api/data/enable_disable_self_service", { body: {} }))).status}
          said={(on) => (on ? "Self-service registration is on." : "Self-service registration is off.")}
        />
      </section>
      <OidcProviders />
    </>
  );
}

function OidcProviders() {
  const providers = useLoad(() => ok(api.GET("/api/data/list_oidc_providers")), []);
  const list = useAction();
  const [adding, setAdding] = useState(false);
  const callback = `${location.origin}/api/auth/callback`;
  return (
    <>
      <section aria-labelledby="oidc-h">
        <h2 id="oidc-h">Sign-in providers (OIDC)</h2>
        <p class="muted">
          Each provider adds a button to the sign-in page. At the provider, register this redirect address: <code class="addr">{callback}</code>
        </p>
        <Outcome of={list} />
        <ErrorNote error={providers.error} />
        {providers.loading && !providers.data && <Loading what="providers" />}
        {providers.data && providers.data.providers.length === 0 && <p>No providers yet.</p>}
        {providers.data && providers.data.providers.length > 0 && (
          <ul class="list">
            {providers.data.providers.map((p) => (
              <ProviderRow key={p.provider_id} provider={p} list={list} reload={providers.reload} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="add-provider-h">
        <h2 id="add-provider-h">Add provider</h2>
        {adding ? (
          <ProviderForm onDone={(text) => (setAdding(false), void providers.reload(), list.say(text))} onCancel={() => setAdding(false)} />
        ) : (
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setAdding(true)}>
              Add a provider
            </button>
          </div>
        )}
      </section>
    </>
  );
}

/** A provider of the list; what its buttons did is said in the list's outcome (the row itself may go). */
function ProviderRow({ provider: p, list, reload }: { provider: Provider; list: Action; reload: () => Promise<void> }) {
  const [mode, setMode] = useState<"view" | "edit" | "remove">("view");
  const remove = () =>
    list.run(async () => {
      await ok(api.POST("/api/data/remove_oidc_provider", { body: { provider_id: p.provider_id } }));
      await reload();
      return `Removed ${p.provider_name}.`;
    });
  return (
    <li class="card">
      <div class="body">
        <h3>{p.provider_name}</h3>
        <p class="meta">
          Button “{p.button_text}” · client ID <span class="addr">{p.client_id}</span> · scope {p.scope}
        </p>
        <p class="meta muted addr">{p.authorization_url}</p>
        <div class="actions">
          <button
            type="button"
            class="secondary"
            aria-label={`Change ${p.provider_name}`}
            aria-expanded={mode === "edit"}
            onClick={() => setMode(mode === "edit" ? "view" : "edit")}
          >
            Change
          </button>
          <button type="button" class="danger" aria-label={`Remove ${p.provider_name}`} onClick={() => setMode("remove")}>
            Remove
          </button>
        </div>
        {mode === "remove" && (
          <Confirm
            question={`Remove ${p.provider_name}? Its button leaves the sign-in page; accounts made through it stay, but sign in with a password from now on.`}
            yes={`Yes, remove ${p.provider_name}`}
            busy={list.busy}
            onYes={() => void remove().then((done) => done || setMode("view"))}
            onNo={() => setMode("view")}
          />
        )}
        {mode === "edit" && <ProviderForm provider={p} onDone={(text) => (setMode("view"), void reload(), list.say(text))} onCancel={() => setMode("view")} />}
      </div>
    </li>
  );
}

const FIELDS = [
  ["provider_name", "Provider name", "text"],
  ["client_id", "Client ID", "text"],
  ["client_secret", "Client secret", "password"],
  ["authorization_url", "Authorization URL", "url"],
  ["token_url", "Token URL", "url"],
  ["user_info_url", "User info URL", "url"],
  ["scope", "Scope", "text"],
  ["button_text", "Button text", "text"],
] as const;
const CLAIMS = [
  ["name_claim", "Name claim"],
  ["email_claim", "E-mail claim"],
  ["username_claim", "Username claim"],
  ["roles_claim", "Roles claim"],
  ["user_role", "Role that may sign in"],
  ["admin_role", "Role that gets admin rights"],
] as const;
const KEYS = [...FIELDS.map(([key]) => key), ...CLAIMS.map(([key]) => key), "button_color", "button_text_color"] as const;
type Key = (typeof KEYS)[number];
/** A new provider's values where they are not empty. */
const DEFAULTS: Partial<Record<Key, string>> = { scope: "openid email profile", button_color: "#4b2fb0", button_text_color: "#ffffff" };

function ProviderForm({ provider, onDone, onCancel }: { provider?: Provider; onDone: (text: string) => void; onCancel: () => void }) {
  // The stored secret never comes back from the server: its field starts empty.
  const start = Object.fromEntries(KEYS.map((key) => [key, (key === "client_secret" ? null : provider?.[key]) ?? DEFAULTS[key] ?? ""])) as Record<Key, string>;
  const [v, setV] = useState(start);
  const form = useAction();
  const set = (key: Key) => (e: { currentTarget: HTMLInputElement }) => setV({ ...v, [key]: e.currentTarget.value });
  const name = provider ? `Change ${provider.provider_name}` : "Add provider";
  const opt = (s: string) => s.trim() || null;

  const submit = async (e: Event) => {
    e.preventDefault();
    const record = {
      provider_name: v.provider_name.trim(),
      client_id: v.client_id.trim(),
      authorization_url: v.authorization_url.trim(),
      token_url: v.token_url.trim(),
      user_info_url: v.user_info_url.trim(),
      button_text: v.button_text.trim(),
      scope: v.scope.trim(),
      button_color: v.button_color,
      button_text_color: v.button_text_color,
      name_claim: opt(v.name_claim),
      email_claim: opt(v.email_claim),
      username_claim: opt(v.username_claim),
      roles_claim: opt(v.roles_claim),
      user_role: opt(v.user_role),
      admin_role: opt(v.admin_role),
    };
    // The form closes when it succeeds: the list says what happened.
    const done = await form.run(async () => {
      if (provider)
        await ok(
          api.PUT("/api/data/update_oidc_provider/{provider_id}", {
            params: { path: { provider_id: provider.provider_id } },
            body: { ...record, client_secret: v.client_secret || null },
          }),
        );
      else await ok(api.POST("/api/data/add_oidc_provider", { body: { ...record, client_secret: v.client_secret } }));
    });
    if (done) onDone(provider ? `Saved ${record.provider_name}.` : `Added ${record.provider_name}.`);
  };

  return (
    <form class="stack sub-form" aria-label={name} onSubmit={(e) => void submit(e)}>
      {FIELDS.map(([key, label, type]) => {
        const common = {
          value: v[key],
          onInput: set(key),
          required: key !== "client_secret" || !provider,
          autoComplete: type === "password" ? "new-password" : "off",
          placeholder: key === "client_secret" && provider ? "Leave empty to keep the saved secret" : undefined,
        };
        // One element per type: Preact's typings tie an input's other attributes to its type.
        return (
          <label key={key}>
            {label}
            {type === "password" ? (
              <input type="password" {...common} />
            ) : type === "url" ? (
              <input type="url" {...common} />
            ) : (
              <input type="text" {...common} />
            )}
          </label>
        );
      })}
      <div class="row">
        <label>
          Button colour
          <input type="color" value={v.button_color} onInput={set("button_color")} />
        </label>
        <label>
          Button text colour
          <input type="color" value={v.button_text_color} onInput={set("button_text_color")} />
        </label>
      </div>
      <details>
        <summary>Claims and roles (optional)</summary>
        <div class="stack">
          {CLAIMS.map(([key, label]) => (
            <label key={key}>
              {label}
              <input value={v[key]} onInput={set(key)} autoComplete="off" />
            </label>
          ))}
        </div>
      </details>
      <FormEnd of={form} submit={provider ? "Save provider" : "Add provider"}>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </FormEnd>
    </form>
  );
}
