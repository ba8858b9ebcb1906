/**
 * Sign in: username and password (then the two-factor code when MFA is on), or an OIDC provider's button;
 * links to "Create account" (when self-service is on) and "Forgot password?".
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok } from "../api";
import { session } from "../session";
import { navigate, safeNext } from "../router";
import { ErrorNote, FormEnd, Outcome, PageTitle, useAction, useLoad } from "../ui";
import { finishSignIn, MfaError, mfaLogin, passwordLogin, startOidc, UsernameField } from "../components/sign-in-kit";

interface Provider {
  provider_id: number;
  provider_name: string;
  client_id: string;
  login_url: string;
  button_text: string;
  button_color: string;
  button_text_color: string;
  icon_svg: string | null;
}

export default function SignIn() {
  const { query } = useLocation();
  const next = query.next ?? null;
  const [mfa, setMfa] = useState<{ token: string; user_id: number } | null>(null);
  const signedIn = !!session.value;

  // Someone already signed in has nothing to do here.
  useEffect(() => {
    if (signedIn) navigate(safeNext(next), true);
  }, [signedIn]);

  const options = useLoad(async () => {
    const [self, oidc] = await Promise.all([
      ok(api.GET("/api/data/self_service_status")),
      ok(api.GET("/api/data/public_oidc_providers")).catch(() => ({ providers: [], disable_standard_login: false })),
    ]);
    return {
      selfService: self.status,
      firstRun: !self.first_admin_created,
      providers: oidc.providers as Provider[],
      passwordOff: oidc.disable_standard_login && oidc.providers.length > 0,
    };
  }, []);

  if (mfa) return <MfaStep token={mfa.token} userId={mfa.user_id} next={next} onRestart={() => setMfa(null)} />;
  const o = options.data;
  return (
    <>
      <PageTitle title="Sign in">Sign in</PageTitle>
      <ErrorNote error={options.error} />
      {o?.firstRun && (
        <p class="note">
          This server has no admin yet. <a href="/first-run">Create the first admin</a>.
        </p>
      )}
      {!o?.passwordOff && <PasswordForm next={next} onMfa={(token, user_id) => setMfa({ token, user_id })} />}
      {o && o.providers.length > 0 && <OidcButtons providers={o.providers} next={next} />}
      <ul class="links">
        {o?.selfService && !o.passwordOff && (
          <li>
            <a href="/create-account">Create account</a>
          </li>
        )}
        {!o?.passwordOff && (
          <li>
            <a href="/forgot-password">Forgot password?</a>
          </li>
        )}
      </ul>
    </>
  );
}

function PasswordForm({ next, onMfa }: { next: string | null; onMfa: (token: string, user_id: number) => void }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const login = await passwordLogin(username.trim(), password);
      if ("mfa_token" in login) onMfa(login.mfa_token, login.user_id);
      else await finishSignIn(login.key, login.user_id, next);
    });
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="Sign in">
      <UsernameField value={username} set={setUsername} />
      <label>
        Password
        <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
      </label>
      <FormEnd of={action} submit="Sign in" />
    </form>
  );
}

function MfaStep({ token, userId, next, onRestart }: { token: string; userId: number; next: string | null; onRestart: () => void }) {
  const [code, setCode] = useState("");
  const [restart, setRestart] = useState(false);
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      try {
        const key = await mfaLogin(token, code.replace(/\s/g, ""));
        await finishSignIn(key, userId, next);
      } catch (err) {
        if (err instanceof MfaError && err.restart) setRestart(true);
        setCode("");
        input.current?.focus();
        throw err;
      }
    });
  };
  return (
    <>
      <PageTitle title="Two-factor code">Two-factor code</PageTitle>
      <p>Open your authenticator app and type the code it shows for this server.</p>
      <form class="stack" onSubmit={submit}>
        <label>
          Two-factor code
          <input
            ref={input}
            name="code"
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9 ]{6,7}"
            maxLength={7}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </label>
        <Outcome of={action} />
        <div class="actions">
          {!restart && (
            <button type="submit" disabled={action.busy}>
              Verify
            </button>
          )}
          <button type="button" class="secondary" onClick={onRestart}>
            {restart ? "Sign in again" : "Back"}
          </button>
        </div>
      </form>
    </>
  );
}

/** A provider's colours, when they are colours at all (an admin typed them). */
function brand(p: Provider): Record<string, string> | undefined {
  if (!CSS.supports("color", p.button_color) || !CSS.supports("color", p.button_text_color)) return undefined;
  return { background: p.button_color, borderColor: p.button_color, color: p.button_text_color };
}

function OidcButtons({ providers, next }: { providers: Provider[]; next: string | null }) {
  const action = useAction();
  return (
    <section aria-labelledby="oidc-heading">
      <h2 id="oidc-heading">Sign in with another account</h2>
      <ul class="list">
        {providers.map((p) => (
          <li key={p.provider_id}>
            <button type="button" class="oidc" style={brand(p)} disabled={action.busy} onClick={() => void action.run(() => startOidc(p, next))}>
              {/* The admin's SVG as an image: shown, never run. */}
              {p.icon_svg && <img alt="" src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(p.icon_svg)}`} />}
              {p.button_text || `Sign in with ${p.provider_name}`}
            </button>
          </li>
        ))}
      </ul>
      <Outcome of={action} />
    </section>
  );
}
