/**
 * Writes docker-compose.yml and k8s/podcast-server.yaml from the one list of service groups
 * (shared/service-groups.ts), so that a new service or group is one line there and `npm run deploy-files`.
 * The Kubernetes objects are typed with kubernetes-models' declarations, so a misspelt field fails the
 * build; test/unit/deploy-files.test.ts validates both files against their JSON schemas and fails when
 * the files on disk differ from what this writes.
 */
import fs from "fs";
import path from "path";
import { Document, isScalar, visit } from "yaml";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IStatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import type { IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { ISecret } from "kubernetes-models/v1/Secret";
import type { IService } from "kubernetes-models/v1/Service";
import type { IContainer } from "kubernetes-models/v1/Container";
import { foldersOf, HEALTH_PORT, METRICS_PORT, ServiceGroup, serviceGroups, SHARED_FOLDERS } from "../shared/service-groups";
import type { IPersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";

const ROOT = path.resolve(__dirname, "..", __dirname.includes(`${path.sep}dist${path.sep}`) ? ".." : "");
const IMAGE = "podcast-server:0.1.0";
const APP = "podcast-server";
// Seconds a stopping pod keeps serving while Kubernetes takes it out of its Service, before SIGTERM.
const PRE_STOP_SECONDS = 5;
// preStop + the broker's drain (tracking.shutdownTimeout, 10 s) + margin.
const GRACE_SECONDS = 30;

const commonEnv = {
  TRANSPORTER: "nats://nats:4222",
  CACHER: "redis://redis:6379",
  LOG_FORMAT: "json",
  HEALTH_PORT: String(HEALTH_PORT),
  METRICS_PORT: String(METRICS_PORT),
};

/** YAML without anchors (each object written out) and with lists of plain values on one line. */
/** The claim of a shared folder's volume. */
const claimOf = (volume: string) => `${APP}-${volume}`;

/**
 * V8 limits that fit the container's memory limit (the image's default, 768 MB of old space and 64 MB
 * semi-spaces, is for the embedded server): old space = the limit less the young generation (3 semi-spaces)
 * and ~100 MB of code and buffers, so that V8 collects before the kernel kills the pod. Big semi-spaces only
 * where there is room: they keep a read's short-lived objects out of the old space (bench/RESULTS.md, listening).
 */
function nodeOptionsOf(memoryLimit: string): string {
  const m = /^(\d+)(Mi|Gi)$/.exec(memoryLimit);
  if (!m) throw new Error(`memory limit ${memoryLimit}: expected Mi or Gi`);
  const mb = Number(m[1]) * (m[2] === "Gi" ? 1024 : 1);
  const semi = mb >= 1024 ? 64 : 16;
  return `--max-old-space-size=${mb - 3 * semi - 100} --max-semi-space-size=${semi}`;
}

/** `{ key: list }` when the list has items, else nothing: the field is absent rather than empty. */
const nonEmpty = <T>(key: string, list: T[]) => (list.length ? { [key]: list } : {});

function stringify(value: unknown): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  visit(doc, { Seq: (_key, node) => void (node.flow = node.items.every(isScalar)) });
  return doc.toString({ lineWidth: 0 });
}

// ---------------------------------------------------------------- docker compose

/** A container is healthy when its node answers /ready (node 20 has fetch; the image has no curl). */
const nodeHealthcheck = {
  test: ["CMD", "node", "-e", `fetch('http://127.0.0.1:${HEALTH_PORT}/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`],
  interval: "10s",
  timeout: "3s",
  retries: 3,
  start_period: "20s",
};

/**
 * NATS runs with its own defaults, max_payload 1 MB among them: large params and answers travel between the
 * services in pieces (shared/message-pieces.middleware.ts), so no message needs more.
 */
const NATS_NOTE = "# NATS keeps its default message limit (1 MB): large calls and answers travel in pieces between the services.";

function composeFile(): string {
  const infra = {
    nats: {
      image: "nats:2.10-alpine",
      command: ["-js", "-m", "8222"],
      restart: "unless-stopped",
      healthcheck: { test: ["CMD", "wget", "-qO-", "http://127.0.0.1:8222/healthz"], interval: "5s", timeout: "3s", retries: 5 },
    },
    mongo: {
      image: "mongo:7",
      restart: "unless-stopped",
      volumes: ["mongo-data:/data/db"],
      healthcheck: {
        test: ["CMD", "mongosh", "--quiet", "--eval", "db.adminCommand('ping').ok"],
        interval: "10s",
        timeout: "5s",
        retries: 5,
        start_period: "20s",
      },
    },
    redis: {
      image: "redis:7-alpine",
      restart: "unless-stopped",
      healthcheck: { test: ["CMD", "redis-cli", "ping"], interval: "5s", timeout: "3s", retries: 5 },
    },
  };
  const groups = Object.fromEntries(
    serviceGroups.map((g) => [
      g.name,
      {
        build: ".",
        image: IMAGE,
        restart: "unless-stopped",
        stop_grace_period: `${GRACE_SECONDS}s`,
        depends_on: Object.fromEntries(Object.keys(infra).map((name) => [name, { condition: "service_healthy" }])),
        environment: {
          ...commonEnv,
          MONGO_URI: "mongodb://mongo:27017/podcasts",
          SECRET_KEY: "${SECRET_KEY:?set SECRET_KEY, e.g. openssl rand -base64 32}",
          SERVICES: g.services.join(","),
          ...(g.httpPort ? { [g.httpPortEnv ?? "PORT"]: String(g.httpPort) } : {}),
          ...Object.fromEntries(foldersOf(g).map((f) => [f.env, f.mountPath])),
        },
        ...(g.httpPort ? { ports: [`${g.httpPort}:${g.httpPort}`] } : {}),
        ...nonEmpty(
          "volumes",
          foldersOf(g).map((f) => `${f.hostDir ?? f.volume}:${f.mountPath}${f.readOnly ? ":ro" : ""}`),
        ),
        healthcheck: nodeHealthcheck,
      },
    ]),
  );
  const header = [
    "# Generated by `npm run deploy-files` from shared/service-groups.ts: edit the list there, not this file.",
    "# NATS between the services, MongoDB behind them, Redis as the shared cache, and one container per",
    "# service group, all from the one image; the groups that write or serve downloaded files share one",
    "# volume for DOWNLOAD_DIR, the backups group one for BACKUP_DIR, and the extras group reads the host folder",
    "# LOCAL_MEDIA_HOST_DIR (default ./media) at LOCAL_MEDIA_DIR. Start: docker compose up -d --build (see README.md).",
    "# Any group may run several containers on MongoDB (docker compose up --scale sync=2): the gPodder sync server",
    "# serializes each user's writes with a lease in MongoDB, so two sync containers never skip a device's action.",
    NATS_NOTE,
  ].join("\n");
  const volumes = { "mongo-data": {}, ...Object.fromEntries(SHARED_FOLDERS.filter((f) => !f.hostDir).map((f) => [f.volume, {}])) };
  return `${header}\n${stringify({ services: { ...infra, ...groups }, volumes })}`;
}

// ---------------------------------------------------------------- Kubernetes

const labelsOf = (component: string) => ({ "app.kubernetes.io/name": APP, "app.kubernetes.io/component": component });

function groupContainer(g: ServiceGroup): IContainer {
  return {
    name: g.name,
    image: IMAGE,
    envFrom: [{ configMapRef: { name: APP } }, { secretRef: { name: `${APP}-secrets` } }],
    env: [
      { name: "SERVICES", value: g.services.join(",") },
      { name: "NODE_ID", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "NODE_OPTIONS", value: nodeOptionsOf(g.resources.memoryLimit) },
      ...(g.httpPort ? [{ name: g.httpPortEnv ?? "PORT", value: String(g.httpPort) }] : []),
      ...foldersOf(g).map((f) => ({ name: f.env, value: f.mountPath })),
    ],
    ...nonEmpty(
      "volumeMounts",
      foldersOf(g).map((f) => ({ name: f.volume, mountPath: f.mountPath, ...(f.readOnly ? { readOnly: true } : {}) })),
    ),
    ports: [
      ...(g.httpPort ? [{ name: "http", containerPort: g.httpPort }] : []),
      { name: "health", containerPort: HEALTH_PORT },
      { name: "metrics", containerPort: METRICS_PORT },
    ],
    readinessProbe: { httpGet: { path: "/ready", port: "health" }, periodSeconds: 5, failureThreshold: 2 },
    livenessProbe: { httpGet: { path: "/live", port: "health" }, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3 },
    lifecycle: { preStop: { exec: { command: ["sleep", String(PRE_STOP_SECONDS)] } } },
    resources: { requests: { cpu: g.resources.cpu, memory: g.resources.memory }, limits: { cpu: g.resources.cpuLimit, memory: g.resources.memoryLimit } },
  };
}

function groupObjects(g: ServiceGroup): object[] {
  const name = `${APP}-${g.name}`;
  const labels = labelsOf(g.name);
  const deployment: IDeployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels },
    spec: {
      replicas: g.replicas,
      selector: { matchLabels: labels },
      // A new pod is ready before an old one goes: no moment with fewer ready replicas than asked for.
      // The sync group (sync + gpodder) keeps RollingUpdate and may run several replicas: the overlap of a
      // rollout, or a scaled group, means several gpodder writers of one user at once, and each user's
      // writes are serialized across replicas by a write lease in the store that expires when its holder
      // dies, with the clock taken by an atomic $inc and published only once the write is stored
      // (services/gpodder.service.ts; test/integration/gpodder-races.test.ts). The sync service syncs a
      // user on one replica at a time (its account lease), its scheduler claims each due account once.
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels, annotations: { "prometheus.io/scrape": "true", "prometheus.io/port": String(METRICS_PORT), "prometheus.io/path": "/metrics" } },
        spec: {
          terminationGracePeriodSeconds: GRACE_SECONDS,
          containers: [groupContainer(g)],
          ...nonEmpty(
            "volumes",
            foldersOf(g).map((f) => ({ name: f.volume, persistentVolumeClaim: { claimName: claimOf(f.volume), ...(f.readOnly ? { readOnly: true } : {}) } })),
          ),
        },
      },
    },
  };
  const out: object[] = [deployment];
  if (g.httpPort) {
    const service: IService = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, labels },
      spec: { selector: labels, ports: [{ name: "http", port: g.httpPort, targetPort: "http" }] },
    };
    out.push(service);
  }
  if (g.autoscale) {
    const hpa: IHorizontalPodAutoscaler = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name, labels },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name },
        minReplicas: g.autoscale.min,
        maxReplicas: g.autoscale.max,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: g.autoscale.cpuPercent } } }],
      },
    };
    out.push(hpa);
  }
  if (g.replicas > 1) {
    const pdb: IPodDisruptionBudget = {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name, labels },
      spec: { minAvailable: 1, selector: { matchLabels: labels } },
    };
    out.push(pdb);
  }
  return out;
}

function infraObjects(): object[] {
  const config: IConfigMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: APP }, data: { ...commonEnv, TRUSTED_PROXIES: "" } };
  // Placeholders: replace before applying (or create the Secret yourself, e.g. from a sealed secret).
  const secret = (name: string, stringData: Record<string, string>): ISecret => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name },
    type: "Opaque",
    stringData,
  });
  // SECRET_KEY seals sync and notification passwords: every replica needs the same one (e.g. openssl rand -base64 32).
  const appSecret = secret(`${APP}-secrets`, { MONGO_URI: "mongodb://podcasts:change-me@mongo:27017/podcasts?authSource=admin", SECRET_KEY: "change-me" });
  const mongoSecret = secret("mongo-credentials", { username: "podcasts", password: "change-me" });
  // One replica of a third-party server: the pod spec of its single container.
  const single = (name: string, container: IContainer) => ({
    replicas: 1,
    selector: { matchLabels: labelsOf(name) },
    template: { metadata: { labels: labelsOf(name) }, spec: { terminationGracePeriodSeconds: 30, containers: [container] } },
  });
  const nats: IStatefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "nats", labels: labelsOf("nats") },
    spec: {
      serviceName: "nats",
      ...single("nats", {
        name: "nats",
        image: "nats:2.10-alpine",
        args: ["-m", "8222"],
        ports: [
          { name: "client", containerPort: 4222 },
          { name: "monitor", containerPort: 8222 },
        ],
        readinessProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 5 },
        livenessProbe: { httpGet: { path: "/healthz", port: "monitor" }, periodSeconds: 10 },
        resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "1", memory: "256Mi" } },
      }),
    },
  };
  const mongo: IStatefulSet = {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "mongo", labels: labelsOf("mongo") },
    spec: {
      serviceName: "mongo",
      ...single("mongo", {
        name: "mongo",
        image: "mongo:7",
        env: [
          { name: "MONGO_INITDB_ROOT_USERNAME", valueFrom: { secretKeyRef: { name: "mongo-credentials", key: "username" } } },
          { name: "MONGO_INITDB_ROOT_PASSWORD", valueFrom: { secretKeyRef: { name: "mongo-credentials", key: "password" } } },
        ],
        ports: [{ name: "mongo", containerPort: 27017 }],
        volumeMounts: [{ name: "data", mountPath: "/data/db" }],
        readinessProbe: { exec: { command: ["mongosh", "--quiet", "--eval", "db.adminCommand('ping').ok"] }, periodSeconds: 10, timeoutSeconds: 5 },
        livenessProbe: { tcpSocket: { port: "mongo" }, initialDelaySeconds: 30, periodSeconds: 20 },
        resources: { requests: { cpu: "250m", memory: "512Mi" }, limits: { cpu: "2", memory: "2Gi" } },
      }),
      volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } } }],
    },
  };
  const redis: IDeployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "redis", labels: labelsOf("redis") },
    spec: single("redis", {
      name: "redis",
      image: "redis:7-alpine",
      args: ["--save", "", "--appendonly", "no"],
      ports: [{ name: "redis", containerPort: 6379 }],
      readinessProbe: { exec: { command: ["redis-cli", "ping"] }, periodSeconds: 5 },
      livenessProbe: { tcpSocket: { port: "redis" }, periodSeconds: 10 },
      resources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    }),
  };
  const service = (name: string, port: number, headless: boolean): IService => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, labels: labelsOf(name) },
    spec: { selector: labelsOf(name), ports: [{ port, targetPort: port }], ...(headless ? { clusterIP: "None" } : {}) },
  });
  // Every replica of the groups holding a folder's services mounts it at once, on any node: ReadWriteMany, or
  // ReadOnlyMany for the folders they only read (see k8s/README.md).
  const claims: IPersistentVolumeClaim[] = SHARED_FOLDERS.map((f) => ({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name: claimOf(f.volume), labels: labelsOf(f.volume) },
    spec: { accessModes: [f.readOnly ? "ReadOnlyMany" : "ReadWriteMany"], resources: { requests: { storage: f.storage } } },
  }));
  return [
    config,
    appSecret,
    mongoSecret,
    ...claims,
    nats,
    service("nats", 4222, false),
    mongo,
    service("mongo", 27017, true),
    redis,
    service("redis", 6379, false),
  ];
}

function k8sFile(): string {
  const header = [
    "# Generated by `npm run deploy-files` from shared/service-groups.ts: edit the list there, not this file.",
    "# The whole system in one namespace: config and secrets, the shared downloads and backups volumes (ReadWriteMany),",
    "# the local podcast folders (ReadOnlyMany),",
    "# NATS, MongoDB (StatefulSet with a volume), Redis, and per service group a Deployment (+ Service for",
    "# the gateways, HPA for the hot groups, PDB).",
    "# Every Deployment rolls (RollingUpdate, maxSurge 1): old and new pods overlap, which every group allows on",
    "# MongoDB; the sync group's gPodder writers of one user are serialized by a lease in MongoDB and an atomic clock.",
    NATS_NOTE,
    "# See k8s/README.md.",
  ].join("\n");
  const docs = [...infraObjects(), ...serviceGroups.flatMap(groupObjects)];
  return `${header}\n${docs.map((d) => stringify(d)).join("---\n")}`;
}

/** Every generated file: path relative to the repository -> content. */
export function deploymentFiles(): Record<string, string> {
  return { "docker-compose.yml": composeFile(), "k8s/podcast-server.yaml": k8sFile() };
}

if (require.main === module) {
  for (const [file, text] of Object.entries(deploymentFiles())) {
    fs.writeFileSync(path.join(ROOT, file), text);
    console.log(`wrote ${file}`);
  }
}
