/**
 * Typed calls between services (house rule 1, docs/architecture.md). Each service's contract file declares
 * the actions others call and the events it sends, name, params and result in one place:
 *
 *   export const selectEpisodes = action<SelectEpisodesParams, SelectionResult[]>("episodes.select_episodes");
 *   export const episodesCreated = event<EpisodesCreatedEvent>("episodes.created");
 *
 * and a caller writes `await selectEpisodes(ctx, { ... })` or `await episodesCreated.emit(ctx, { ... })`:
 * the compiler checks the params and knows the result, and go-to-definition leads from the call to the
 * contract and from there (the name) to the action. No service writes an action or event name itself
 * (test/unit/typed-calls.test.ts).
 */
import type { CallingOptions } from "moleculer";

/** What calls an action: a handler's Context, or a broker (jobs and events that have no request). */
export interface Caller {
  call<R, P>(actionName: string, params: P, opts?: CallingOptions): Promise<R>;
}

/** What sends an event: a Context or a broker. `groups` limits an emit to those service groups. */
export interface Emitter {
  emit<D>(eventName: string, data: D, opts?: object): Promise<void>;
  broadcast<D>(eventName: string, data: D, opts?: object): Promise<void>;
}

export interface TypedAction<P, R> {
  (caller: Caller, params: P, opts?: CallingOptions): Promise<R>;
  /** The action's full name ("service.action"), for the places that need the name itself (the route table's checks, caches). */
  readonly actionName: string;
}

export interface TypedEvent<P> {
  readonly eventName: string;
  /** To one instance of each service group that listens (a balanced event). */
  emit(emitter: Emitter, payload: P, opts?: object): Promise<void>;
  /** To every instance that listens. */
  broadcast(emitter: Emitter, payload: P, opts?: object): Promise<void>;
}

/** An action others call: P its params, R its result. */
export function action<P, R>(actionName: string): TypedAction<P, R> {
  const call = (caller: Caller, params: P, opts?: CallingOptions): Promise<R> => caller.call<R, P>(actionName, params, opts);
  return Object.assign(call, { actionName });
}

/** An event a service sends: P its payload. */
export function event<P>(eventName: string): TypedEvent<P> {
  return {
    eventName,
    emit: (emitter, payload, opts) => emitter.emit(eventName, payload, opts),
    broadcast: (emitter, payload, opts) => emitter.broadcast(eventName, payload, opts),
  };
}
