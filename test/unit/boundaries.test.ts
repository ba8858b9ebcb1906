/**
 * house rule 1, docs/architecture.md and the size limit, read from the sources: no service file imports another service's
 * file or folder (the shapes that travel between services live in shared/contracts/), shared/ imports no
 * service, and no source file grows past what a reader takes in at once.
 */
import fs from "fs";
import path from "path";

const ROOT = path.join(__dirname, "..", "..");
const SERVICES = path.join(ROOT, "services");
const SHARED = path.join(ROOT, "shared");
const MAX_LINES = 600;

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** Relative module specifiers of import/export ... from, import() and require(), resolved to paths. */
function relativeImports(file: string): string[] {
  const src = fs.readFileSync(file, "utf8");
  const specs = [...src.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm)].map((m) => m[1]);
  return specs.filter((s) => s.startsWith(".")).map((s) => path.resolve(path.dirname(file), s));
}

/** The service a path under services/ belongs to: services/<name>.*.ts or services/<name>.parts/..., so api.routes.ts is api's. */
function ownerOf(p: string): string {
  const [first] = path.relative(SERVICES, p).split(path.sep);
  return first.split(".")[0];
}

const inside = (dir: string, p: string) => !path.relative(dir, p).startsWith("..");

describe("service boundaries", () => {
  test("no file under services/ imports another service's file or folder", () => {
    const offences = tsFiles(SERVICES).flatMap((file) =>
      relativeImports(file)
        .filter((target) => inside(SERVICES, target) && ownerOf(target) !== ownerOf(file))
        .map((target) => `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`),
    );
    expect(offences).toEqual([]);
  });

  test("shared/ imports no service", () => {
    const offences = tsFiles(SHARED).flatMap((file) =>
      relativeImports(file)
        .filter((target) => inside(SERVICES, target))
        .map((target) => `${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`),
    );
    expect(offences).toEqual([]);
  });

  test("a service's folder holds modules, not services (moleculer-runner would load a *.service file twice)", () => {
    const nested = tsFiles(SERVICES).filter((f) => path.dirname(f) !== SERVICES && f.endsWith(".service.ts"));
    expect(nested.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  test("a service's modules sit in services/<name>.parts/, never in a folder named like a service", () => {
    // moleculer-runner resolves SERVICES=users to the folder services/users when one exists, so a pod
    // choosing its services by name would load that folder (no *.service file there) instead of users.service.
    const folders = fs
      .readdirSync(SERVICES, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((d) => !d.endsWith(".parts"))).toEqual([]);
  });
});

describe("file size", () => {
  test(`no .ts file under services/ or shared/ is over ${MAX_LINES} lines`, () => {
    const long = [...tsFiles(SERVICES), ...tsFiles(SHARED)]
      .map((f) => ({ file: path.relative(ROOT, f), lines: fs.readFileSync(f, "utf8").split("\n").length }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
