/**
 * The gateway answers the web app's page addresses with its HTML (shared/web-app.ts) before the API routes:
 * no page may take a first path segment that an API route (or the API's docs) uses, or that route would be lost.
 */
import fs from "fs";
import path from "path";
import { routes } from "../../services/api.routes";
import { firstSegments } from "../../shared/web-app";
import { WEB_PAGES } from "../../shared/web-pages";

test("no web page shares its first path segment with an API route", () => {
  const apiFirst = firstSegments(routes);
  expect(apiFirst.has("api")).toBe(true);
  expect(WEB_PAGES.filter((p) => apiFirst.has(p))).toEqual([]);
});

test("the app's router declares every page the gateway serves, and no other top-level page", () => {
  const app = fs.readFileSync(path.join(__dirname, "..", "..", "web", "src", "app.tsx"), "utf8");
  const declared = new Set([...app.matchAll(/<Route path="\/([\w-]+)/g)].map((m) => m[1]));
  expect([...declared].sort()).toEqual([...WEB_PAGES].sort());
});
