/**
 * moleculer-web answers every request through a call of its private action api.rest, which goes through
 * the whole local middleware chain, and then calls the aliased action: two broker calls per request, the
 * first of which costs as much as everything else the gateway adds (bench/README.md, gateway section).
 * Only the HTTP server calls api.rest, so it runs the handler directly on a Context of its own, keeping
 * the two things the chain gave it: a request whose service has no endpoint yet (a rolling restart) is
 * retried under the broker's retryPolicy, and the request is tracked in the service's in-flight list, so
 * a stopping gateway drains it before its HTTP server closes.
 */
export function directRest(service: any): (params: object, opts?: object) => Promise<unknown> {
  const broker = service.broker;
  const action = service._serviceSpecification.actions[`${service.fullName}.rest`];
  const endpoint = broker.registry.createPrivateActionEndpoint(action);
  const retry = broker.options.retryPolicy;
  const tracking = !!broker.options.tracking?.enabled;
  return async (params, opts = {}) => {
    const inFlight = {};
    // The list the ContextTracker middleware waits on when the service stops.
    if (tracking) service._trackedContexts.push(inFlight);
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return await action.handler(broker.ContextFactory.create(broker, endpoint, params, opts));
        } catch (err) {
          if (!retry?.enabled || attempt >= retry.retries || !retry.check(err)) throw err;
          const delay = Math.min(retry.delay * Math.pow(retry.factor, attempt), retry.maxDelay);
          service.logger.warn(`Retry to call '${action.name}' action after ${delay} ms...`, { attempts: attempt + 1, error: (err as Error)?.name });
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    } finally {
      if (tracking) {
        const at = service._trackedContexts.indexOf(inFlight);
        if (at !== -1) service._trackedContexts.splice(at, 1);
      }
    }
  };
}
