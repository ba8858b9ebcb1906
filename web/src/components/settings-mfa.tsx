/**
 * Settings: two-factor authentication. Turning it on: a new secret from the server (as a QR code and as text
 * for apps without a camera), on only once a code from the app proves the app has it. Turning it off asks
 * once more, since it weakens the account.
 */
import { useEffect, useState } from "preact/hooks";
import QRCode from "qrcode";
import { api, ok } from "../api";
import { me } from "../session";
import { ErrorNote, FormEnd, Loading, Outcome, useAction, useLoad } from "../ui";

export function MfaSection() {
  const user_id = me().user_id;
  const status = useLoad(() => ok(api.GET("/api/data/check_mfa_enabled/{user_id}", { params: { path: { user_id } } })), [user_id]);
  // The step that turned it on or off closes as the status changes, so the section says what it did.
  const outcome = useAction();
  const on = status.data?.mfa_enabled;
  const changed = (message: string) => {
    outcome.say(message);
    void status.reload();
  };
  return (
    <section aria-labelledby="mfa-heading">
      <h2 id="mfa-heading">Two-factor authentication</h2>
      {status.loading && !status.data && <Loading />}
      <ErrorNote error={status.error} />
      {status.data && (
        <>
          <p>
            Two-factor authentication is <strong>{on ? "on" : "off"}</strong>.{" "}
            {on
              ? "Signing in asks for a code from your authenticator app after the password."
              : "With it on, signing in also asks for a code from an authenticator app on your phone."}
          </p>
          {on ? (
            <TurnOff onDone={() => changed("Two-factor authentication is off.")} />
          ) : (
            <TurnOn
              onDone={() => changed("Two-factor authentication is on. Apps that synced with your password need an app password now (Phones and apps).")}
            />
          )}
        </>
      )}
      <Outcome of={outcome} />
    </section>
  );
}

function TurnOn({ onDone }: { onDone: () => void }) {
  const user_id = me().user_id;
  const [setup, setSetup] = useState<{ secret: string; qr: string } | null>(null);
  const [code, setCode] = useState("");
  const start = useAction();
  const verify = useAction();
  const begin = () =>
    start.run(async () => {
      const s = await ok(api.GET("/api/data/generate_mfa_secret/{user_id}", { params: { path: { user_id } } }));
      setSetup({ secret: s.secret, qr: await QRCode.toDataURL(s.otpauth_uri, { margin: 2, width: 220 }) });
    });
  const submit = (e: Event) => {
    e.preventDefault();
    void verify.run(async () => {
      const r = await ok(api.POST("/api/data/verify_temp_mfa", { body: { user_id, mfa_code: code.replace(/\s/g, "") } }));
      if (!r.verified) throw new Error("That code is not right. Check that the phone's clock is right and type the code the app shows now.");
      onDone();
    });
  };
  if (!setup)
    return (
      <>
        <div class="actions">
          <button type="button" onClick={() => void begin()} disabled={start.busy}>
            Set up two-factor authentication
          </button>
        </div>
        <ErrorNote error={start.error} />
      </>
    );
  return (
    <div class="stack">
      <ol class="steps">
        <li>
          <p>In your authenticator app (for example Aegis, FreeOTP or Google Authenticator), add an account by scanning this code:</p>
          <img class="qr" alt="QR code for your authenticator app" src={setup.qr} width={220} height={220} />
          <p>
            Or type this key into the app: <code class="secret">{setup.secret}</code>
          </p>
        </li>
        <li>Type the six-digit code the app shows, to prove it works.</li>
      </ol>
      <form class="stack" onSubmit={submit}>
        <label>
          Code from the app
          <input
            inputMode="numeric"
            autocomplete="one-time-code"
            pattern="[0-9 ]{6,7}"
            maxLength={7}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </label>
        <FormEnd of={verify} submit="Turn on">
          <button type="button" class="secondary" onClick={() => setSetup(null)}>
            Cancel
          </button>
        </FormEnd>
      </form>
    </div>
  );
}

function TurnOff({ onDone }: { onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const action = useAction();
  useEffect(() => action.clear(), [asking]);
  const off = () =>
    action.run(async () => {
      await ok(api.DELETE("/api/data/delete_mfa", { body: { user_id: me().user_id } }));
      setAsking(false);
      onDone();
    });
  return (
    <>
      {asking ? (
        <div class="stack">
          <p>Turn two-factor authentication off? Then your password alone opens your account.</p>
          <div class="actions">
            <button type="button" class="danger" onClick={() => void off()} disabled={action.busy}>
              Yes, turn it off
            </button>
            <button type="button" class="secondary" onClick={() => setAsking(false)}>
              Keep it on
            </button>
          </div>
        </div>
      ) : (
        <div class="actions">
          <button type="button" class="danger" onClick={() => setAsking(true)}>
            Turn off
          </button>
        </div>
      )}
      <ErrorNote error={action.error} />
    </>
  );
}
