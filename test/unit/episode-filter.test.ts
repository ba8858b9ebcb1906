/**
 * The episode filter (shared/episode-filter.ts): words or an expression between slashes, run by re2js (RE2's
 * linear-time engine): the same answers as a case-insensitive RegExp on the syntax both take, a clear refusal of
 * what needs backtracking or is too large, and a bounded time on the inputs that make a backtracking engine run for ever.
 */
import { descriptionText, DESCRIPTION_CHARS, type EpisodeFilter, MAX_PROGRAM, passesFilter, ruleError } from "../../shared/episode-filter";

const PATTERNS = [
  "abc",
  "^abc$",
  "a|b|cd",
  "colou?r",
  "\\bcat\\b",
  "\\Bat",
  "[a-c]+x",
  "[^a]",
  "[^\\d\\s]+",
  "\\d{2,3}",
  "\\d{2,}",
  "a.c",
  "(?:ab)+$",
  "^(a|ab)*c",
  "part \\d+",
  "\\x41\\x42",
  "[\\w-]+@",
  "x*",
  "^$",
  "q&a",
  "[.]",
  "a{2}b{0,1}",
  "(a*)*b",
  "\\.\\*\\[",
  "[\\]]",
  "[-a]",
  "[a-]",
  "Ä|é",
  "\\t|\\n",
  "(bonus|trailer):",
];
const TEXTS = [
  "",
  "abc",
  "xxABCyy",
  "zzb",
  "COLOR",
  "colour",
  "a cat!",
  "concat",
  "BBx",
  "A",
  "Ab",
  "a1b",
  "a12b",
  "a\nc",
  "xabab",
  "abababc",
  "Part 12",
  "AB",
  "x-y@",
  "cat",
  "at",
  "Q&A",
  "a.b",
  "aab",
  "ab",
  ".*[",
  "]",
  "-",
  "ä",
  "É",
  "tab\there",
  "Bonus: outtakes",
  "aaaaaaaa",
];

describe("expressions", () => {
  const filter = (include: string): EpisodeFilter => ({ include, exclude: "", min_duration: null, max_duration: null });
  const matches = (p: string, t: string) => passesFilter(filter(`/${p}/`), { title: t || " ", description: null, duration: 0 });

  test("answer as a case-insensitive RegExp (dotAll) does on the syntax both take", () => {
    const wrong: string[] = [];
    for (const p of PATTERNS) {
      const native = new RegExp(p, "is");
      for (const t of TEXTS.filter(Boolean)) if (matches(p, t) !== native.test(t)) wrong.push(`/${p}/ on ${JSON.stringify(t)}`);
    }
    expect(wrong).toEqual([]);
  });

  test("refuse backreferences, lookarounds, malformed and too large expressions, saying why", () => {
    const refused: [string, RegExp][] = [
      ["(a)\\1", /invalid escape sequence/],
      ["(?=a)", /unsupported Perl syntax/],
      ["(?!a)", /unsupported Perl syntax/],
      ["(?<=a)b", /invalid named capture/],
      ["(a", /missing closing \)/],
      ["a)", /unexpected \)/],
      ["[a", /missing closing \]/],
      ["*a", /missing argument to repetition/],
      ["a**", /invalid nested repetition/],
      ["a{5,2}", /invalid repeat count/],
      ["[z-a]", /invalid character class range/],
      ["a{1001}", /invalid repeat count/],
      ["((a{10}){10}){10}", /too large/],
      [`[a-z]{${MAX_PROGRAM}}`, /too large/],
    ];
    for (const [p, why] of refused) expect([p, ruleError(`/${p}/`)]).toEqual([p, expect.stringMatching(why)]);
  });

  test("expressions that backtrack for ever elsewhere answer in bounded time here", () => {
    // Show notes as long as a filter reads (DESCRIPTION_CHARS), ending where a backtracking engine gives up on each prefix.
    const long = DESCRIPTION_CHARS - 1;
    const cases: [string, string][] = [
      ["(a+)+$", "a".repeat(long) + "!"],
      ["(a|aa)*b", "a".repeat(long)],
      ["(x+x+)+y", "x".repeat(long)],
      ["(.*a){20}!", "a".repeat(long)],
      ["^(\\w+\\s?)*$", "word ".repeat(long / 5) + "!"],
      // About the largest program allowed, on the longest text a filter reads: the bound is program size x text length.
      ["(?:[a-z]?){80}[a-z]{80}#", "z".repeat(DESCRIPTION_CHARS)],
    ];
    for (const [p, text] of cases) {
      expect([p, ruleError(`/${p}/`)]).toEqual([p, ""]);
      const started = process.hrtime.bigint();
      expect(passesFilter(filter(`/${p}/`), { title: "-", description: text, duration: 0 })).toBe(false);
      // Measured at a few ms to a few tens of ms; a backtracking engine takes longer than the age of the universe.
      expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
    }
  });
});

describe("episode filters", () => {
  const filter = (f: Partial<EpisodeFilter>): EpisodeFilter => ({ include: "", exclude: "", min_duration: null, max_duration: null, ...f });
  const ep = (title: string, description: string | null = null, duration = 0) => ({ title, description, duration });

  test("words (comma-separated, anywhere) or an expression between slashes, against the title and the description's text", () => {
    expect(passesFilter(filter({ include: "interview, q&a" }), ep("An INTERVIEW"))).toBe(true);
    expect(passesFilter(filter({ include: "interview, q&a" }), ep("Notes", "<p>Listener Q&amp;A</p>"))).toBe(true);
    expect(passesFilter(filter({ include: "interview, q&a" }), ep("Notes", "<a href='interview'>x</a>"))).toBe(false);
    expect(passesFilter(filter({ include: "/^part \\d+/" }), ep("Part 3"))).toBe(true);
    expect(passesFilter(filter({ include: "/^part \\d+/" }), ep("The part 3"))).toBe(false);
    expect(passesFilter(filter({ include: "/^$/" }), ep("x", null))).toBe(false); // no description is no text
    expect(passesFilter(filter({ exclude: "trailer" }), ep("Trailer"))).toBe(false);
    expect(passesFilter(filter({ include: "a", exclude: "b" }), ep("a b"))).toBe(false);
    expect(passesFilter(filter({ include: " , " }), ep("anything"))).toBe(true); // no words: no rule
    expect(passesFilter(undefined, ep("anything"))).toBe(true);
  });

  test("duration bounds, an unknown duration passing them", () => {
    const f = filter({ min_duration: 600, max_duration: 3600 });
    expect([599, 600, 3600, 3601, 0].map((d) => passesFilter(f, ep("x", null, d)))).toEqual([false, true, true, false, true]);
  });

  test("rule errors name the problem; the description's text is bounded", () => {
    expect(ruleError("bonus, trailer")).toBe("");
    expect(ruleError("/a+/")).toBe("");
    expect(ruleError("/(a/")).toMatch(/not a supported regular expression: missing closing \)/);
    expect(ruleError("//")).toMatch(/empty regular expression/);
    expect(ruleError("x".repeat(201))).toMatch(/at most 200/);
    expect(descriptionText("<p>A &amp; B &#233;&#x41;</p>")).toBe(" A & B éA ");
    expect(descriptionText("x".repeat(10_000)).length).toBe(DESCRIPTION_CHARS);
  });
});
