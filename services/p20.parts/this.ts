/** The p20 service's `this` (shared/service-types.ts): no db mixin and no methods of its own. */
import type { Service } from "moleculer";

export type P20This = Service;
