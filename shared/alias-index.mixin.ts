/**
 * moleculer-web finds a request's alias by trying every alias's regular expression in turn, in its own
 * order (longest paths first): with the API's ~220 aliases that took 0.7 µs for get_theme and 2.7 µs for
 * get_queued_episodes on every request, 0.24-0.26 µs with this index (bench/RESULTS.md, gateway). The index is a tree
 * of the aliases' leading literal segments; only the aliases whose literal segments start the URL are
 * tried, in moleculer-web's order, so the alias found is the one moleculer-web would have found.
 * List it before ApiGateway in `mixins`: the first mixin's methods win.
 */
import type { Service, ServiceSchema } from "moleculer";
import { mixin } from "./service-types";

/** What this needs of moleculer-web's Alias. */
interface WebAlias {
  fullPath: string;
  isMethod(method: string): boolean;
  match(url: string): Record<string, string> | false;
}

// A segment with any of these is a parameter or a pattern in path-to-regexp, not a literal.
const PATTERN = /[:*?+()[\]{}]/;

/** The literal segments an alias's path starts with, lower-cased (path-to-regexp matches case-insensitively). */
function literalPrefix(fullPath: string): string[] {
  const literal: string[] = [];
  for (const segment of fullPath.split("/")) {
    if (!segment) continue;
    if (PATTERN.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return literal;
}

/**
 * A tree of literal segments. Each node holds, in moleculer-web's order, the positions of every alias
 * whose literal segments are the node's path or a start of it: the candidates for a URL are the list of
 * the deepest node its segments reach.
 */
export interface AliasIndex {
  positions: number[];
  children: Map<string, AliasIndex>;
}

export function buildAliasIndex(aliases: WebAlias[]): AliasIndex {
  const root: AliasIndex = { positions: [], children: new Map() };
  const own = new Map<AliasIndex, number[]>([[root, []]]);
  aliases.forEach((alias, position) => {
    let node = root;
    for (const segment of literalPrefix(alias.fullPath)) {
      let child = node.children.get(segment);
      if (!child) {
        child = { positions: [], children: new Map() };
        node.children.set(segment, child);
        own.set(child, []);
      }
      node = child;
    }
    own.get(node)!.push(position);
  });
  const fill = (node: AliasIndex, inherited: number[]) => {
    node.positions = [...inherited, ...own.get(node)!].sort((x, y) => x - y);
    for (const child of node.children.values()) fill(child, node.positions);
  };
  fill(root, []);
  return root;
}

/** The first alias (in moleculer-web's order) for the method that matches the URL, or false. */
export function findAlias(aliases: WebAlias[], index: AliasIndex, url: string, method: string) {
  let node = index;
  for (let from = 0; from < url.length;) {
    let to = url.indexOf("/", from);
    if (to < 0) to = url.length;
    if (to > from) {
      const child = node.children.get(url.slice(from, to).toLowerCase());
      if (!child) break;
      node = child;
    }
    from = to + 1;
  }
  for (const position of node.positions) {
    const alias = aliases[position];
    if (!alias.isMethod(method)) continue;
    const params = alias.match(url);
    if (params) return { alias, params };
  }
  return false;
}

/** The gateway's `this` as the index sees it: moleculer-web's alias list, and the index kept for it. */
export interface AliasIndexThis extends Service {
  aliases: WebAlias[];
  aliasIndex: AliasIndex;
  aliasIndexOf: WebAlias[];
  aliasIndexLength: number;
  resolveAlias(url: string, method?: string): ReturnType<typeof findAlias>;
}

export const aliasIndexMixin: Partial<ServiceSchema> = mixin<AliasIndexThis>({
  name: "alias-index",
  methods: {
    resolveAlias(this: AliasIndexThis, url: string, method: string = "GET") {
      // moleculer-web replaces or re-sorts its list when routes change: rebuilt then, on the next request.
      if (this.aliasIndexOf !== this.aliases || this.aliasIndexLength !== this.aliases.length) {
        this.aliasIndex = buildAliasIndex(this.aliases);
        this.aliasIndexOf = this.aliases;
        this.aliasIndexLength = this.aliases.length;
      }
      return findAlias(this.aliases, this.aliasIndex, url, method);
    },
  },
});
