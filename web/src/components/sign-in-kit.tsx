/**
 * What the sign-in pages share: the password login (HTTP Basic at get_key), finishing a login with a key
 * (who it is, admin or not), the OIDC start, and the new account's form.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../api";
import { setSession } from "../session";
import { navigate, safeNext } from "../router";
import { FormEnd, useAction } from "../ui";

/** HTTP Basic of a name and password typed by a person: UTF-8 first, so that "Jürgen" or "密码" arrive as typed. */
export function basicAuth(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return "Basic " + btoa(binary);
}

export type PasswordLogin = { key: string; user_id: number } | { mfa_token: string; user_id: number };

/** get_key with the typed credentials: a key, or the token of the two-factor step. */
export async function passwordLogin(username: string, password: string): Promise<PasswordLogin> {
  const answer = await ok(api.GET("/api/data/get_key", { headers: { Authorization: basicAuth(username, password) } }));
  if (answer.mfa_required && answer.mfa_session_token) return { mfa_token: answer.mfa_session_token, user_id: answer.user_id };
  if (!answer.retrieved_key) throw new Error("The server gave no key. Try again.");
  return { key: answer.retrieved_key, user_id: answer.user_id };
}

/** The second step: the code of the authenticator app for the token of the first. */
export async function mfaLogin(token: string, code: string): Promise<string> {
  const answer = await ok(api.POST("/api/data/verify_mfa_and_get_key", { body: { mfa_session_token: token, mfa_code: code } }));
  if (answer.status === "success" && answer.retrieved_key) return answer.retrieved_key;
  if (answer.status === "invalid_code") throw new MfaError("That code is not right. Type the code your app shows now.", false);
  throw new MfaError("This sign-in took too long. Sign in with your password again.", true);
}

export class MfaError extends Error {
  constructor(
    message: string,
    /** The first step has to be done again. */
    readonly restart: boolean,
  ) {
    super(message);
  }
}

/**
 * A key in hand: who it belongs to and whether they are an admin (asked with that key, since the session
 * is set only afterwards), then the session, then the page the person came for.
 */
export async function finishSignIn(key: string, user_id: number, next: string | null | undefined): Promise<void> {
  const headers = { "Api-Key": key };
  const path = { user_id };
  const [admin, info] = await Promise.all([
    ok(api.GET("/api/data/user_admin_check/{user_id}", { params: { path }, headers })),
    ok(api.GET("/api/data/my_user_info/{user_id}", { params: { path }, headers })),
  ]);
  setSession({ key, user_id, username: info.username, is_admin: admin.is_admin });
  navigate(safeNext(next ?? null), true);
}

/** Random text for OIDC state and PKCE: base64url of crypto.getRandomValues bytes (32 bytes: 43 characters). */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The S256 challenge of a verifier; none where the browser has no WebCrypto digest (plain http to a LAN address). */
async function pkceChallenge(verifier: string): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/**
 * Leaves for the provider: a fresh state (and PKCE verifier) stored at the server first, which sends the key
 * back to /oidc-done of this origin, with where to go next.
 */
export async function startOidc(provider: { client_id: string; login_url: string }, next: string | null | undefined): Promise<void> {
  const state = randomToken(32);
  const verifier = randomToken(48);
  const challenge = await pkceChallenge(verifier);
  const origin_url = `${location.origin}/oidc-done?next=${encodeURIComponent(safeNext(next ?? null))}`;
  await ok(api.POST("/api/auth/store_state", { body: { state, client_id: provider.client_id, origin_url, code_verifier: challenge ? verifier : null } }));
  const url = new URL(provider.login_url, location.href);
  url.searchParams.set("state", state);
  if (challenge) {
    url.searchParams.set("code_challenge", challenge);
    url.searchParams.set("code_challenge_method", "S256");
  }
  location.assign(url.href);
}

/** An existing account's username: phone keyboards neither capitalize nor "correct" it. */
export function UsernameField({ value, set }: { value: string; set: (value: string) => void }) {
  return (
    <label>
      Username
      <input
        name="username"
        autocomplete="username"
        autocapitalize="none"
        spellcheck={false}
        required
        value={value}
        onInput={(e) => set(e.currentTarget.value)}
      />
    </label>
  );
}

export interface NewAccount {
  username: string;
  password: string;
  email: string;
  fullname: string;
}

/** The new account's four fields (first admin, self-service): created by `create`, then signed in with them. */
export function AccountForm({ name, submit, create }: { name: string; submit: string; create: (a: NewAccount) => Promise<unknown> }) {
  const [a, setA] = useState<NewAccount>({ username: "", password: "", email: "", fullname: "" });
  const action = useAction();
  const field = (k: keyof NewAccount) => ({
    value: a[k],
    required: true,
    onInput: (e: { currentTarget: HTMLInputElement }) => setA({ ...a, [k]: e.currentTarget.value }),
  });
  const onSubmit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const account = { ...a, username: a.username.trim(), email: a.email.trim(), fullname: a.fullname.trim() };
      await create(account);
      const login = await passwordLogin(account.username, account.password);
      if ("mfa_token" in login) navigate("/sign-in", true);
      else await finishSignIn(login.key, login.user_id, "/");
    });
  };
  return (
    <form class="stack" onSubmit={onSubmit} aria-label={name}>
      <label>
        Username
        <input
          name="username"
          autocomplete="username"
          autocapitalize="none"
          spellcheck={false}
          maxLength={64}
          pattern="[^\s:]+"
          title="No spaces or colons"
          {...field("username")}
        />
      </label>
      <label>
        Password
        <input name="password" type="password" autocomplete="new-password" aria-describedby="new-password-hint" {...field("password")} />
      </label>
      <p id="new-password-hint" class="muted hint">
        At least 8 characters.
      </p>
      <label>
        E-mail
        <input name="email" type="email" autocomplete="email" {...field("email")} />
      </label>
      <label>
        Full name
        <input name="fullname" autocomplete="name" maxLength={255} {...field("fullname")} />
      </label>
      <FormEnd of={action} submit={submit} />
    </form>
  );
}
