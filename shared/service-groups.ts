/**
 * The one list of service groups: which services share a process (a docker-compose service, a Kubernetes
 * Deployment). k8s/generate.ts writes docker-compose.yml and k8s/ from it, and a test fails when a
 * services/*.service.ts file is in no group or the files on disk differ from what this list generates.
 * A group may name services that do not exist yet: moleculer-runner only warns about a missing file.
 */
export interface ServiceGroup {
  /** Name of the container / Deployment (podcast-<name>). */
  name: string;
  services: string[];
  /** Ports this group listens on besides the health and metrics ports (the gateways). */
  httpPort?: number;
  /** The setting (shared/config.ts) that gives the gateway of this group its port: PORT unless said. */
  httpPortEnv?: "PORT" | "SEARCH_PORT";
  /** Replicas to start with; an HPA scales the hot groups between min and max. */
  replicas: number;
  autoscale?: { min: number; max: number; cpuPercent: number };
  resources: { cpu: string; memory: string; cpuLimit: string; memoryLimit: string };
}

const small = { cpu: "100m", memory: "128Mi", cpuLimit: "500m", memoryLimit: "384Mi" };
const busy = { cpu: "250m", memory: "256Mi", cpuLimit: "1", memoryLimit: "768Mi" };
/** The library group holds the episodes service's in-memory catalogue and cached listening states (docs/library.md "Listening at size"). */
const large = { cpu: "250m", memory: "512Mi", cpuLimit: "1", memoryLimit: "1536Mi" };

export const serviceGroups: ServiceGroup[] = [
  { name: "gateway", services: ["api"], httpPort: 8040, replicas: 2, autoscale: { min: 2, max: 8, cpuPercent: 70 }, resources: busy },
  { name: "accounts", services: ["users", "auth", "oidc", "notifications"], replicas: 2, resources: small },
  { name: "library", services: ["podcasts", "episodes", "queue", "playlists", "collections", "following", "bookmarks"], replicas: 2, resources: large },
  { name: "feeds", services: ["feeds"], replicas: 2, autoscale: { min: 2, max: 6, cpuPercent: 70 }, resources: busy },
  { name: "downloads", services: ["tasks", "downloads", "workers"], replicas: 2, autoscale: { min: 2, max: 6, cpuPercent: 70 }, resources: busy },
  {
    name: "search",
    services: ["search", "search-api", "vidsite", "people"],
    httpPort: 5000,
    httpPortEnv: "SEARCH_PORT",
    replicas: 2,
    autoscale: { min: 2, max: 6, cpuPercent: 70 },
    resources: busy,
  },
  // Two writers of one gPodder user are safe (a per-user write lease and an atomic clock, services/gpodder.service.ts): the group rolls and scales.
  { name: "sync", services: ["sync", "gpodder"], replicas: 2, resources: small },
  { name: "extras", services: ["opml", "rss", "sharing", "p20", "proxy", "local"], replicas: 2, resources: small },
  { name: "backups", services: ["backups"], replicas: 1, resources: small },
];

/**
 * Services that read or write files under DOWNLOAD_DIR (workers write downloads, downloads streams and
 * deletes them): every replica of a group holding one mounts the one shared volume there.
 */
export const FILE_SERVICES = ["downloads", "workers"];
export const DOWNLOAD_DIR = "/data/downloads";
/** The backups service writes scheduled backups to BACKUP_DIR and lists, restores and deletes them there. */
export const BACKUP_SERVICES = ["backups"];
export const BACKUP_DIR = "/data/backups";
/** The local service reads the local podcast folders under LOCAL_MEDIA_DIR (and never writes there). */
export const MEDIA_SERVICES = ["local"];
export const LOCAL_MEDIA_DIR = "/data/media";

/** A folder that every replica of the groups holding one of `services` mounts: a named volume or host folder (compose), a ReadWriteMany or ReadOnlyMany claim (k8s). */
export interface SharedFolder {
  volume: string;
  /** The setting (shared/config.ts) that points the services at it. */
  env: string;
  mountPath: string;
  services: string[];
  storage: string;
  /** Mounted read-only: a ReadOnlyMany claim (k8s), `:ro` (compose). */
  readOnly?: true;
  /** Compose binds this host folder instead of a named volume (the operator's own files). */
  hostDir?: string;
}

export const SHARED_FOLDERS: SharedFolder[] = [
  { volume: "downloads", env: "DOWNLOAD_DIR", mountPath: DOWNLOAD_DIR, services: FILE_SERVICES, storage: "100Gi" },
  { volume: "backups", env: "BACKUP_DIR", mountPath: BACKUP_DIR, services: BACKUP_SERVICES, storage: "20Gi" },
  {
    volume: "media",
    env: "LOCAL_MEDIA_DIR",
    mountPath: LOCAL_MEDIA_DIR,
    services: MEDIA_SERVICES,
    storage: "100Gi",
    readOnly: true,
    hostDir: "${LOCAL_MEDIA_HOST_DIR:-./media}",
  },
];

/** The shared folders a group's pods mount. */
export function foldersOf(g: ServiceGroup): SharedFolder[] {
  return SHARED_FOLDERS.filter((f) => g.services.some((s) => f.services.includes(s)));
}

/** Ports every node opens (shared/node-health.middleware.ts and Moleculer's Prometheus reporter). */
export const HEALTH_PORT = 3001;
export const METRICS_PORT = 3030;
