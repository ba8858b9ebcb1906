/**
 * A list read a page at a time (limit/offset): the first page when deps change, the next on "Load more".
 * Long lists (10,000 episodes) never load whole; an answer of an older query never overwrites a newer one.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../api";

export interface Page<T> {
  items: T[];
  total: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
  loading: boolean;
  error: string | null;
  hasMore: boolean;
  more: () => void;
  reload: () => void;
}

export function usePaged<T>(load: (offset: number, limit: number) => Promise<Page<T>>, limit: number, deps: unknown[]): Paged<T> {
  const [state, setState] = useState<{ items: T[]; total: number; loading: boolean; error: string | null }>({
    items: [],
    total: 0,
    loading: true,
    error: null,
  });
  const turn = useRef(0);
  const fetchAt = (offset: number, mine: number, keep: T[]) => {
    setState((s) => ({ ...s, loading: true, error: null }));
    load(offset, limit).then(
      (page) => mine === turn.current && setState({ items: [...keep, ...page.items], total: page.total, loading: false, error: null }),
      (err) => mine === turn.current && setState((s) => ({ ...s, loading: false, error: errorText(err) })),
    );
  };
  const reload = () => fetchAt(0, ++turn.current, []);
  // The caller's deps say when the first page loads again (`reload` is a new function at every render).
  useEffect(reload, deps);
  return {
    ...state,
    hasMore: state.items.length < state.total,
    more: () => !state.loading && fetchAt(state.items.length, turn.current, state.items),
    reload,
  };
}

/** A value that follows `value` once it has stopped changing for `ms` (typing in a search field). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}
