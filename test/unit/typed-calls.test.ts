/**
 * Calls between services are typed (shared/contracts/call.ts): no service writes an action or event name
 * in a call, and every name the route table and the contracts give is an action a service defines, or an
 * event one listens to. A typo in either fails here.
 */
import fs from "fs";
import path from "path";
import type { ServiceSchema } from "moleculer";
import { routes } from "../../services/api.routes";

const ROOT = path.join(__dirname, "..", "..");

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

/** The actions and the events listened to of every service, with their mixins, as the broker would name them. */
function defined(): { actions: Set<string>; events: Set<string> } {
  const actions = new Set<string>();
  const events = new Set<string>();
  const walk = (name: string, schema: Partial<ServiceSchema>) => {
    for (const mixin of schema.mixins ?? []) walk(name, mixin);
    for (const [key, def] of Object.entries(schema.actions ?? {})) {
      if (def === false) actions.delete(`${name}.${key}`);
      else actions.add(`${name}.${(def as { name?: string }).name ?? key}`);
    }
    for (const key of Object.keys(schema.events ?? {})) events.add(key);
  };
  for (const file of fs.readdirSync(path.join(ROOT, "services")).filter((f) => f.endsWith(".service.ts"))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every service module, by its file name
    const schema: ServiceSchema = require(path.join(ROOT, "services", file)).default;
    walk(schema.name, schema);
  }
  return { actions, events };
}

test("no service or shared module names an action or event in a call: it calls the contract's typed helper", () => {
  const contracts = path.join(ROOT, "shared", "contracts");
  const bare = [...tsFiles(path.join(ROOT, "services")), ...tsFiles(path.join(ROOT, "shared"))]
    .filter((file) => !file.startsWith(contracts + path.sep))
    .flatMap((file) => {
      const src = fs.readFileSync(file, "utf8");
      // The name may be on the next line of a long call.
      return [...src.matchAll(/\.(call|mcall|emit|broadcast|broadcastLocal)(<[^>]*>)?\(\s*["'`]([^"'`]*)/g)].map(
        (m) => `${path.relative(ROOT, file)}:${src.slice(0, m.index).split("\n").length}: ${m[3]}`,
      );
    });
  expect(bare).toEqual([]);
});

test("every action the route table and the contracts name is defined by a service, every event sent is listened to", () => {
  const { actions, events } = defined();
  const missing: string[] = [];
  for (const [route, def] of Object.entries(routes)) if (!actions.has(def.action)) missing.push(`route ${route}: ${def.action}`);
  for (const file of fs.readdirSync(path.join(ROOT, "shared", "contracts"))) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- every contract module, by its file name
    const exported: Record<string, unknown> = require(path.join(ROOT, "shared", "contracts", file));
    for (const [name, value] of Object.entries(exported)) {
      const v = value as { actionName?: string; eventName?: string } | null;
      if (typeof v?.actionName === "string" && !actions.has(v.actionName)) missing.push(`${file} ${name}: action ${v.actionName}`);
      if (typeof v?.eventName === "string" && !events.has(v.eventName)) missing.push(`${file} ${name}: event ${v.eventName}`);
    }
  }
  expect(missing).toEqual([]);
  // The walk itself finds the services: a route table of 300 names cannot all be missing by accident.
  expect(actions.size).toBeGreaterThan(300);
});
