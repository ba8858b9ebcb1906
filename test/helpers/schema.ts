/** A service's schema as a test's own broker takes it. */
import type { ServiceSchema } from "moleculer";

/**
 * Each service's schema is typed with its own `this` (shared/service-types.ts); Moleculer's createService takes
 * one typed with the plain Service, so the tests that build a broker of their own cast here, once.
 */
export function plainSchema<S, T>(schema: ServiceSchema<S, T>): ServiceSchema {
  return schema as unknown as ServiceSchema;
}
