/** Answers of the gateway's own operations (services/api.service.ts): health, instance check, config, version. */
import { Type, type Static } from "./answers";

/** GET /api/health: 503 with the same body when a component is unhealthy. */
export const HealthAnswer = Type.Object({
  status: Type.Union([Type.Literal("healthy"), Type.Literal("unhealthy")]),
  database: Type.Boolean(),
  redis: Type.Boolean(),
  timestamp: Type.String({ format: "date-time" }),
  version: Type.String(),
  /** The services with a store that answered the health check's round. */
  services: Type.Array(Type.String()),
});
export type HealthAnswer = Static<typeof HealthAnswer>;

/** GET /api/service_check and GET /api/pinepods_check: the documents' fields, then pinepods_instance (what both PinePods clients check). */
export const ServiceCheckAnswer = Type.Object({ status_code: Type.Integer(), service_instance: Type.Boolean(), pinepods_instance: Type.Boolean() });
export type ServiceCheckAnswer = Static<typeof ServiceCheckAnswer>;

export const ServiceVersionAnswer = Type.Object({ data: Type.String() });
export type ServiceVersionAnswer = Static<typeof ServiceVersionAnswer>;

/** GET /api/data/config: all strings (the web client reads each as Option<String>; proxy_port too). */
export const ConfigAnswer = Type.Object({
  api_url: Type.String(),
  proxy_url: Type.String(),
  proxy_host: Type.String(),
  proxy_port: Type.String(),
  proxy_protocol: Type.String(),
  reverse_proxy: Type.String(),
  people_url: Type.String(),
  version: Type.String(),
});
export type ConfigAnswer = Static<typeof ConfigAnswer>;
