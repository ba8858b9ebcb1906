/**
 * The linear-time engine of user regular expressions (shared/safe-regex.ts) and the episode filter built on it
 * (shared/episode-filter.ts): the same answers as a case-insensitive RegExp on the syntax it takes, a clear
 * refusal of what needs backtracking, and a bounded time on the inputs that make a backtracking engine run for ever.
 */
import { MAX_PROGRAM, SafeRegex, SafeRegexError } from "../../shared/safe-regex";
import { descriptionText, DESCRIPTION_CHARS, type EpisodeFilter, passesFilter, ruleError } from "../../shared/episode-filter";

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
  "\\u0041\\x42",
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

describe("SafeRegex", () => {
  test("answers as a case-insensitive RegExp (dotAll) does on the syntax it takes", () => {
    const wrong: string[] = [];
    for (const p of PATTERNS) {
      const mine = new SafeRegex(p);
      const native = new RegExp(p, "is");
      for (const t of TEXTS) if (mine.test(t) !== native.test(t)) wrong.push(`/${p}/ on ${JSON.stringify(t)}`);
    }
    expect(wrong).toEqual([]);
  });

  test("refuses backreferences, lookarounds, other groups and malformed or oversized expressions, saying why", () => {
    const refused: [string, RegExp][] = [
      ["(a)\\1", /backreferences/],
      ["\\k<n>", /backreferences/],
      ["(?=a)", /lookarounds/],
      ["(?!a)", /lookarounds/],
      ["(?<=a)b", /lookarounds/],
      ["(?<!a)b", /lookarounds/],
      ["(?<n>a)", /only \(\.\.\.\) and \(\?:\.\.\.\) groups/],
      ["(a", /missing '\)'/],
      ["a)", /unmatched '\)'/],
      ["[a", /missing '\]'/],
      ["*a", /nothing to repeat/],
      ["a**", /nothing to repeat/],
      ["^*", /nothing to repeat/],
      ["a{5,2}", /out of order/],
      ["[z-a]", /out of order/],
      ["a{101}", /repetition count/],
      ["\\p{L}", /escape \\p/],
      ["\\", /end of the expression/],
      ["((a{10}){10}){10}", /too large/],
      ["x".repeat(MAX_PROGRAM), /too large/],
    ];
    for (const [p, why] of refused) {
      expect(() => new SafeRegex(p)).toThrow(SafeRegexError);
      expect(() => new SafeRegex(p)).toThrow(why);
    }
  });

  test("expressions that backtrack for ever elsewhere answer in bounded time here", () => {
    const cases: [string, string][] = [
      ["(a+)+$", "a".repeat(5000) + "!"],
      ["(a|aa)*b", "a".repeat(5000)],
      ["(x+x+)+y", "x".repeat(5000)],
      ["(.*a){20}!", "a".repeat(5000)],
      ["^(\\w+\\s?)*$", "word ".repeat(1000) + "!"],
      // The largest program on the longest text a filter reads: the bound is program size x text length.
      [`${"[a-z]?".repeat(60)}${"[a-z]".repeat(60)}#`, "z".repeat(DESCRIPTION_CHARS)],
    ];
    for (const [p, text] of cases) {
      const re = new SafeRegex(p);
      expect(re.size).toBeLessThanOrEqual(MAX_PROGRAM);
      const started = process.hrtime.bigint();
      expect(re.test(text)).toBe(false);
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
    expect(ruleError("/(a/")).toMatch(/not a supported regular expression: missing '\)'/);
    expect(ruleError("//")).toMatch(/empty regular expression/);
    expect(ruleError("x".repeat(201))).toMatch(/at most 200/);
    expect(descriptionText("<p>A &amp; B &#233;&#x41;</p>")).toBe(" A & B éA ");
    expect(descriptionText("x".repeat(10_000)).length).toBe(DESCRIPTION_CHARS);
  });
});
