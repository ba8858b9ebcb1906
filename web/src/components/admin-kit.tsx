/**
 * Pieces the admin sections share: a confirmation step for what cannot be undone, a server-wide on/off switch,
 * sizes in words. (A form's outcome is useAction and Outcome of ../ui, as everywhere.)
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { errorText } from "../api";
import { ErrorNote, Outcome, useAction } from "../ui";

/** The "are you sure" step: focus moves here so keyboard and screen reader users meet the question. */
export function Confirm({
  question,
  yes,
  onYes,
  onNo,
  busy,
}: {
  question: ComponentChildren;
  yes: string;
  onYes: () => void;
  onNo: () => void;
  busy?: boolean;
}) {
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
export function Switch({
  label,
  hint,
  read,
  flip,
  said,
}: {
  label: string;
  hint?: ComponentChildren;
  read: () => Promise<boolean>;
  flip: () => Promise<boolean>;
  said: (on: boolean) => string;
}) {
  const [on, setOn] = useState<boolean | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const form = useAction();
  useEffect(() => {
    read().then(setOn, (err) => setLoadError(errorText(err)));
    // Read once, when the switch appears: `read` is a new function at every render of the caller.
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
        <input type="checkbox" checked={!!on} disabled={on === null || form.busy} onChange={(e) => void change(e.currentTarget.checked)} />
        {label}
      </label>
      {hint && <p class="muted hint">{hint}</p>}
      <ErrorNote error={loadError} />
      <Outcome of={form} />
    </div>
  );
}

/** Bytes as a short size for people. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
