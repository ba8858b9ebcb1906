/**
 * Pieces the admin sections share: a form's outcome (the server's error in words, success in a status line that
 * screen readers announce), a confirmation step for what cannot be undone, and a server-wide on/off switch.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { errorText } from "../api";
import { ErrorNote } from "../ui";

export interface FormRun {
  busy: boolean;
  error: string | null;
  done: string | null;
  /** Runs fn; its answer (a sentence) becomes the success line, a throw the error. True when it succeeded. */
  run: (fn: () => Promise<string>) => Promise<boolean>;
  reset: () => void;
  /** Shows a success sentence of work done elsewhere (a form that closed). */
  say: (text: string) => void;
}

export function useForm(): FormRun {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (fn: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await fn());
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, run, reset: () => (setError(null), setDone(null)), say: (text) => (setError(null), setDone(text)) };
}

/** The status line stays in the page (empty) so that its later text is announced. */
export function Outcome({ form }: { form: FormRun }) {
  return (
    <>
      <ErrorNote error={form.error} />
      <p role="status" class="success status-line">
        {form.done ?? ""}
      </p>
    </>
  );
}

/** The "are you sure" step: focus moves here so keyboard and screen reader users meet the question. */
export function Confirm({ question, yes, onYes, onNo, busy }: { question: ComponentChildren; yes: string; onYes: () => void; onNo: () => void; busy?: boolean }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="confirm">
      <p tabIndex={-1} ref={ref}>
        {question}
      </p>
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={onYes}>
          {yes}
        </button>
        <button type="button" class="secondary" onClick={onNo}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * A server-wide switch whose API only toggles: the state is read again right before flipping, so a page
 * that shows an old state never flips the wrong way.
 */
export function Switch({ label, hint, read, flip, said }: { label: string; hint?: ComponentChildren; read: () => Promise<boolean>; flip: () => Promise<boolean>; said: (on: boolean) => string }) {
  const [on, setOn] = useState<boolean | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const form = useForm();
  useEffect(() => {
    read().then(setOn, (err) => setLoadError(errorText(err)));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  const change = async (want: boolean) => {
    // The box shows the wanted state at once (a re-render while the request runs must not flip it back).
    setOn(want);
    const done = await form.run(async () => {
      let now = await read();
      if (now !== want) now = await flip();
      setOn(now);
      return said(now);
    });
    if (!done) setOn(!want);
  };
  return (
    <div class="switch">
      <label class="check">
        <input type="checkbox" checked={!!on} disabled={on === null || form.busy} onChange={(e) => change(e.currentTarget.checked)} />
        {label}
      </label>
      {hint && <p class="muted hint">{hint}</p>}
      <ErrorNote error={loadError} />
      <Outcome form={form} />
    </div>
  );
}

/** Bytes as a short size for people. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
