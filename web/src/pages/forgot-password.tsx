/**
 * Password reset by mail: ask for a code (username and e-mail of the account: the server asks for both and
 * answers the same whether or not they match, so nobody learns who has an account), then set a new password
 * with the mailed code. The second form is there from the start for someone who comes back with a code.
 */
import { useRef, useState } from "preact/hooks";
import { api, ok } from "../api";
import { FormEnd, Outcome, PageTitle, useAction } from "../ui";
import { UsernameField } from "../components/sign-in-kit";

export default function ForgotPassword() {
  const [email, setEmail] = useState("");
  const codeInput = useRef<HTMLInputElement>(null);
  return (
    <>
      <PageTitle title="Forgot password">Forgot password</PageTitle>
      <AskForCode
        onSent={(e) => {
          setEmail(e);
          codeInput.current?.focus();
        }}
      />
      <SetPassword email={email} setEmail={setEmail} codeInput={codeInput} />
      <p>
        <a href="/sign-in">Back to sign in</a>
      </p>
    </>
  );
}

function AskForCode({ onSent }: { onSent: (email: string) => void }) {
  const [username, setUsername] = useState("");
  const [email, setEmail] = useState("");
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await ok(api.POST("/api/data/reset_password_create_code", { body: { username: username.trim(), email: email.trim() } }));
      onSent(email.trim());
      return `If ${username.trim()} is an account with this e-mail address, a reset code is on its way to ${email.trim()}. It works once, for 15 minutes.`;
    });
  };
  return (
    <section aria-labelledby="ask-heading">
      <h2 id="ask-heading">1. Get a reset code by e-mail</h2>
      <form class="stack" onSubmit={submit} aria-label="Get a reset code">
        <UsernameField value={username} set={setUsername} />
        <label>
          E-mail
          <input name="email" type="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <FormEnd of={action} submit="Send reset code" />
      </form>
    </section>
  );
}

function SetPassword({ email, setEmail, codeInput }: { email: string; setEmail: (e: string) => void; codeInput: { current: HTMLInputElement | null } }) {
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await ok(api.POST("/api/data/verify_and_reset_password", { body: { reset_code: code.trim(), email: email.trim(), new_password: password } }));
      setPassword("");
      setCode("");
      return "Your password is changed.";
    });
  };
  return (
    <section aria-labelledby="reset-heading">
      <h2 id="reset-heading">2. Set a new password</h2>
      <form class="stack" onSubmit={submit} aria-label="Set a new password">
        <label>
          E-mail of the account
          <input name="email" type="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Reset code
          <input
            ref={codeInput}
            name="code"
            autocomplete="one-time-code"
            autocapitalize="characters"
            spellcheck={false}
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
        </label>
        <label>
          New password
          <input
            name="new-password"
            type="password"
            autocomplete="new-password"
            aria-describedby="reset-password-hint"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <p id="reset-password-hint" class="muted hint">
          At least 8 characters.
        </p>
        {/* The sentence goes on with a link. */}
        <Outcome
          of={action}
          done={
            action.done && (
              <>
                {action.done} <a href="/sign-in">Sign in</a> with the new one.
              </>
            )
          }
        />
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Set new password
          </button>
        </div>
      </form>
    </section>
  );
}
