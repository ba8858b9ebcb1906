/**
 * Reads the API documents (podcast-server-api.md and ROUTES.md, in the directory given as the first
 * argument) into shared/api-docs.json: per "METHOD /path", the summary and description that
 * /api/openapi.json shows (shared/openapi.ts). The documents live outside the repository, so the result
 * is checked in: `npm run api-docs -- docs/spec` after the documents (docs/spec/) change.
 */
import fs from "fs";
import path from "path";

const OUT = path.join(__dirname, "..", "..", "shared", "api-docs.json");
const OPEN = "\u2021"; // the documents' mark of an answer they do not show

const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());
const isRow = (line: string) => line.startsWith("|") && !/^\|[-| ]+\|$/.test(line.trim());
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** "get_theme" of "/api/data/get_theme/{user_id}": the last segment that is not a parameter. */
function pathName(p: string): string {
  const segments = p.split("/").filter((s) => s && !s.startsWith("{"));
  return segments[segments.length - 1];
}

function describe(request: string, response: string, extra: string[]): string {
  const answer = response.includes(OPEN)
    ? `Not shown in the API documents (${OPEN})${
        response.replace(OPEN, "").trim()
          ? `; ${response
              .replace(OPEN, "")
              .replace(/^\s*;\s*/, "")
              .trim()}`
          : ""
      }: shaped as this API family's clients read it (docs/pinepods-client-calls.md).`
    : response;
  return [`Request: ${request === "-" ? "none" : request}.`, `Response: ${answer}`, ...extra].join("\n\n");
}

function main(specDir: string) {
  const api = fs.readFileSync(path.join(specDir, "podcast-server-api.md"), "utf8").split("\n");
  const routesDoc = fs.readFileSync(path.join(specDir, "ROUTES.md"), "utf8").split("\n");
  // ROUTES.md: the paths of the operations the API document names only.
  const pathOfName = new Map<string, string>();
  for (const line of routesDoc.filter(isRow)) {
    const [name, method, p] = cells(line);
    if (/^(GET|POST|PUT|PATCH|DELETE)$/.test(method)) pathOfName.set(name, `${method} ${p}`);
  }
  // Sentences of the "Behaviour:" paragraphs and record descriptions, to attach to the operation they name.
  const notes = api
    .filter((l) => l.startsWith("Behaviour:") || /^- .*\(\w+\):/.test(l))
    .flatMap((l) => l.replace(/^Behaviour:\s*|^- /, "").split(/(?<=\.)\s+/));
  const notesOf = (name: string) => notes.filter((n) => new RegExp(`\\b${name}\\b`).test(n));

  const operations: Record<string, { summary: string; description: string }> = {};
  for (const line of api.filter(isRow)) {
    const row = cells(line);
    if (row.length === 5 && /^(GET|POST|PUT|PATCH|DELETE)$/.test(row[0])) {
      const [method, p, , request, response] = row;
      const name = pathName(p);
      operations[`${method} ${p}`] = { summary: sentence(name.replace(/_/g, " ")), description: describe(request, response, notesOf(name)) };
    } else if (row.length === 3) {
      const [label, request, response] = row;
      // One row may name several operations ("podsync sync, podsync force sync, ...").
      for (const name of label.replace(/\s*\([^)]*\)\s*$/, "").split(/,\s*/)) {
        const key = pathOfName.get(name);
        if (key) operations[key] = { summary: sentence(name), description: describe(request, response, []) };
      }
    }
  }
  const sorted = Object.fromEntries(Object.entries(operations).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(OUT, JSON.stringify({ source: "podcast-server-api.md and ROUTES.md (npm run api-docs)", operations: sorted }, null, 2) + "\n");
  console.log(`${Object.keys(sorted).length} operations -> ${path.relative(process.cwd(), OUT)}`);
}

main(process.argv[2] ?? ".");
