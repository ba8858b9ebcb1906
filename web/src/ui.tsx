/** Small pieces every page uses: loading an answer, showing an error in words, a page heading that sets the title. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { errorText } from "./api";

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  /** Loads again; settles (never rejecting) once the answer or its error is shown, so a success can be announced after it. */
  reload: () => Promise<void>;
}

/** Runs load when deps change; a slower earlier answer never overwrites a later one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const turn = useRef(0);
  const run = useCallback(() => {
    const mine = ++turn.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    return load().then(
      (data) => {
        if (mine === turn.current) setState({ data, error: null, loading: false });
      },
      (err) => {
        if (mine === turn.current) setState((s) => ({ ...s, error: errorText(err), loading: false }));
      },
    );
    // The caller's deps say when to load again: `load` is a new function at every render.
  }, deps);
  useEffect(() => void run(), [run]);
  return { ...state, reload: run };
}

/**
 * What an action started by a button or a form shows: the button busy meanwhile, then the server's error in
 * words or a sentence of success (see Outcome).
 */
export interface Action {
  busy: boolean;
  error: string | null;
  /** The success sentence: the one run's fn answered, or the one `say` showed. */
  done: string | null;
  /** Runs fn; a sentence it answers becomes `done`, a throw the error. True when it succeeded. */
  run: (fn: () => Promise<string | void>) => Promise<boolean>;
  /** Forgets the error only. */
  clear: () => void;
  /** Forgets the error and the success sentence. */
  reset: () => void;
  /** Shows a success sentence of work done elsewhere (a form that closed). */
  say: (text: string) => void;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (fn: () => Promise<string | void>) => {
    setBusy(true);
    setError(null);
    // The last outcome goes: a success line must never stand beside a new attempt's error.
    setDone(null);
    try {
      const said = await fn();
      if (typeof said === "string") setDone(said);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return {
    busy,
    error,
    done,
    run,
    clear: () => setError(null),
    reset: () => (setError(null), setDone(null)),
    say: (text) => (setError(null), setDone(text)),
  };
}

/**
 * Under a form or buttons: the action's error (an alert) and its success in a status region that stays in the
 * page while empty, so that its later text is announced. `done` stands in for the sentence where the success
 * is more than words (a link, a secret shown once).
 */
export function Outcome({ of, done }: { of: Pick<Action, "error" | "done">; done?: ComponentChildren }) {
  return (
    <>
      <ErrorNote error={of.error} />
      <div role="status" class="success status-line">
        {done ?? of.done}
      </div>
    </>
  );
}

/** A form's end: its outcome, then its submit button, which waits while the action runs, and any other buttons. */
export function FormEnd({ of, submit, children }: { of: Action; submit: ComponentChildren; children?: ComponentChildren }) {
  return (
    <>
      <Outcome of={of} />
      <div class="actions">
        <button type="submit" disabled={of.busy}>
          {submit}
        </button>
        {children}
      </div>
    </>
  );
}

export function ErrorNote({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Loading({ what }: { what?: string }) {
  return (
    <p class="muted" role="status">
      Loading{what ? ` ${what}` : ""}…
    </p>
  );
}

/** The page's h1 and the document title; focus moves to it when the page changes, for screen readers and keyboards. */
export function PageTitle({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Podcasts`;
    ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

/** Seconds as h:mm:ss or m:ss. */
export function duration(seconds: number | null | undefined): string {
  const s = Math.max(0, Math.round(seconds ?? 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export function shortDate(iso: string | null | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

/** The playback speeds offered (the player's and a podcast's setting), with `current` among them when it is another. */
const SPEEDS = [0.5, 0.75, 0.8, 0.9, 1, 1.1, 1.2, 1.25, 1.3, 1.5, 1.75, 2, 2.5, 3];

export function SpeedOptions({ current }: { current?: number | null }) {
  const speeds = current && !SPEEDS.includes(current) ? [...SPEEDS, current].sort((a, b) => a - b) : SPEEDS;
  return (
    <>
      {speeds.map((s) => (
        <option key={s} value={String(s)}>
          {s}×
        </option>
      ))}
    </>
  );
}
