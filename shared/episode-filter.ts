/**
 * A subscriber's episode filter of one podcast (POST /api/data/podcast_filters, stored on the subscription)
 * and the one matcher every place applies it with: the inbox, the podcast's episode list when filtered,
 * auto-download and auto-queue.
 *
 * `include` and `exclude` are either a regular expression written between slashes (`/^part \d+/`, run by
 * re2js, a port of RE2: linear time in the text, no backtracking, so no expression can hang a refresh; it
 * refuses what needs backtracking, backreferences and lookarounds) or comma-separated words and phrases, each found anywhere
 * in the text (`bonus, trailer`). Both are matched case-insensitively against the title and the description
 * (its text without HTML tags, the first DESCRIPTION_CHARS characters). An episode passes when it matches
 * `include` (if set), does not match `exclude` (if set), and its duration is within the bounds (seconds; an
 * episode whose feed gives no duration passes them: nothing says it is too short or too long).
 */
import { RE2JS } from "re2js";

/** Longest include or exclude value. */
export const FILTER_TEXT_MAX = 200;
/** Characters of a description's text that filters read: the match cost stays bounded whatever the feed sends. */
export const DESCRIPTION_CHARS = 4000;
const TITLE_CHARS = 1000;
/** Largest compiled expression: a match of it on the longest text read takes a few ms at most. */
export const MAX_PROGRAM = 256;

export interface EpisodeFilter {
  include: string;
  exclude: string;
  min_duration: number | null;
  max_duration: number | null;
}

/** What a filter reads of an episode. */
export interface FilterSubject {
  title: string;
  description: string | null;
  /** Seconds; 0 when unknown. */
  duration: number;
}

type Rule = { regex: RE2JS } | { words: string[] };

/** A value the filter cannot take; its message says why (the 400 of podcast_filters). */
class RuleError extends Error {}

/** The rule of an include or exclude value, or null when it is empty. Throws RuleError for a bad expression. */
function parseRule(value: string): Rule | null {
  const v = value.trim();
  if (v.length >= 2 && v.startsWith("/") && v.endsWith("/")) {
    if (v.length === 2) throw new RuleError("an empty regular expression");
    let regex: RE2JS;
    try {
      // DOTALL: "." also crosses the line breaks of show notes, as a description is one text.
      regex = RE2JS.compile(v.slice(1, -1), RE2JS.CASE_INSENSITIVE | RE2JS.DOTALL);
    } catch (err) {
      // re2js's syntax errors read "error parsing regexp: <what>: `<where>`".
      throw new RuleError((err as Error).message.replace(/^error parsing regexp: /, ""));
    }
    // A match costs up to the program's size times the text's length: both are bounded.
    if (regex.programSize() > MAX_PROGRAM) throw new RuleError(`the expression is too large (at most ${MAX_PROGRAM} instructions once compiled)`);
    return { regex };
  }
  const words = v
    .split(",")
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  return words.length ? { words } : null;
}

/** What is wrong with an include or exclude value ("" when nothing): the 400 of podcast_filters says it. */
export function ruleError(value: string): string {
  if (value.length > FILTER_TEXT_MAX) return `at most ${FILTER_TEXT_MAX} characters`;
  try {
    parseRule(value);
    return "";
  } catch (err) {
    if (err instanceof RuleError) return `not a supported regular expression: ${err.message}`;
    throw err;
  }
}

/** Compiled rules by value: every episode of a refresh or an inbox page is tested with the same few. */
const compiled = new Map<string, Rule | null>();

function ruleOf(value: string): Rule | null {
  let rule = compiled.get(value);
  if (rule === undefined) {
    // A stored value that no longer compiles (a stricter engine since) filters nothing rather than failing every read.
    rule = ruleError(value) ? null : parseRule(value);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(value, rule);
  }
  return rule;
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** A description's text: tags dropped (one pass, no regular expression), common entities decoded, at most DESCRIPTION_CHARS. */
export function descriptionText(html: string | null): string {
  if (!html) return "";
  let out = "";
  let inTag = false;
  for (let i = 0; i < html.length && out.length < DESCRIPTION_CHARS; i++) {
    const c = html[i];
    if (inTag) inTag = c !== ">";
    else if (c === "<") {
      inTag = true;
      out += " ";
    } else out += c;
  }
  return out.replace(/&(#\d{1,6}|#x[0-9a-f]{1,5}|[a-z]{2,6});/gi, (whole, name: string) => {
    const code = name[0] !== "#" ? null : name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    if (code !== null) return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function ruleMatches(rule: Rule, texts: string[]): boolean {
  if ("regex" in rule) return texts.some((t) => rule.regex.matcher(t).find());
  const lower = texts.map((t) => t.toLowerCase());
  return rule.words.some((w) => lower.some((t) => t.includes(w)));
}

/** Whether the filter reads the title and description (else the duration alone decides). */
export function readsText(f: EpisodeFilter | null | undefined): boolean {
  return !!f && (!!ruleOf(f.include) || !!ruleOf(f.exclude));
}

/** Does the episode pass the filter (every episode passes without one). */
export function passesFilter(f: EpisodeFilter | null | undefined, e: FilterSubject): boolean {
  if (!f) return true;
  if (e.duration > 0 && ((f.min_duration !== null && e.duration < f.min_duration) || (f.max_duration !== null && e.duration > f.max_duration))) return false;
  const include = ruleOf(f.include);
  const exclude = ruleOf(f.exclude);
  if (!include && !exclude) return true;
  // An absent description is no text to match (an expression that matches "" would otherwise match every such episode).
  const texts = [e.title.slice(0, TITLE_CHARS), descriptionText(e.description)].filter(Boolean);
  return (!include || ruleMatches(include, texts)) && (!exclude || !ruleMatches(exclude, texts));
}

/** An episode list item (episodes.episode_items) as a filter reads it. */
export function listItemSubject(i: { episodetitle: string; episodedescription: string; episodeduration: number }): FilterSubject {
  return { title: i.episodetitle, description: i.episodedescription, duration: i.episodeduration };
}

/** A filter that filters nothing (no text, no bounds): stored as none. */
export function isEmptyFilter(f: EpisodeFilter): boolean {
  return !f.include.trim() && !f.exclude.trim() && f.min_duration === null && f.max_duration === null;
}
