/** Small pieces every page uses: loading an answer, showing an error in words, a page heading that sets the title. */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { errorText } from "./api";

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Runs load when deps change; a slower earlier answer never overwrites a later one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const turn = useRef(0);
  const run = useCallback(() => {
    const mine = ++turn.current;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => mine === turn.current && setState({ data, error: null, loading: false }),
      (err) => mine === turn.current && setState((s) => ({ ...s, error: errorText(err), loading: false })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** An action started by a button: its error shown next to it, the button busy meanwhile. */
export function useAction(): { busy: boolean; error: string | null; run: (fn: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
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
