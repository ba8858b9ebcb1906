/**
 * Regular expressions from users (episode filters, shared/episode-filter.ts) run here, never in V8's
 * backtracking engine: a pattern like `(a+)+$` takes exponential time there on a long run of "a" followed
 * by another character. This is a Thompson NFA run as a Pike VM (no backtracking): a match costs at most
 * (program size x text length) steps whatever the pattern, and the program size is bounded.
 *
 * The syntax is JavaScript's without what needs backtracking: literals and escapes, `.`, classes `[...]`
 * with ranges and \d \w \s (and \D \W \S), `^` `$` `\b` `\B`, groups `(...)` `(?:...)`, `|`, and the
 * quantifiers `*` `+` `?` `{n}` `{n,}` `{n,m}` (lazy forms accepted; a yes/no match does not need them).
 * Backreferences, lookarounds and named groups are refused with a SafeRegexError that says why.
 * Matching is always case-insensitive; `.` matches any character (line breaks too); `^` and `$` are the
 * start and end of the text. Characters are UTF-16 code units, as a RegExp without the `u` flag reads them.
 */

/** Instructions of the program, at most this many: with a text of n characters a match costs at most MAX_PROGRAM * n steps. */
export const MAX_PROGRAM = 256;
/** The largest bound of a counted repetition ({n,m}). */
const MAX_COUNT = 100;

export class SafeRegexError extends Error {}

/** Code unit ranges, inclusive pairs [lo, hi, lo, hi, ...], sorted and merged. */
type Ranges = number[];
interface CharSet {
  neg: boolean;
  ranges: Ranges;
}

type Node =
  | { t: "set"; set: CharSet }
  | { t: "assert"; kind: "bol" | "eol" | "word" | "nonword" }
  | { t: "cat"; items: Node[] }
  | { t: "alt"; items: Node[] }
  | { t: "rep"; node: Node; min: number; max: number };

const DIGITS: Ranges = [48, 57];
const WORD: Ranges = [48, 57, 65, 90, 95, 95, 97, 122];
// What \s matches in a RegExp.
const SPACE: Ranges = [9, 13, 32, 32, 160, 160, 5760, 5760, 8192, 8202, 8232, 8233, 8239, 8239, 8287, 8287, 12288, 12288, 65279, 65279];
const ANY: CharSet = { neg: false, ranges: [0, 0xffff] };

function merge(ranges: Ranges): Ranges {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i], ranges[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= out[last] + 1) out[last] = Math.max(out[last], hi);
    else out.push(lo, hi);
  }
  return out;
}

function complement(ranges: Ranges): Ranges {
  const m = merge(ranges);
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < m.length; i += 2) {
    if (m[i] > next) out.push(next, m[i] - 1);
    next = m[i + 1] + 1;
  }
  if (next <= 0xffff) out.push(next, 0xffff);
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) throw new SafeRegexError(this.src[this.i] === ")" ? "unmatched ')'" : `unexpected '${this.src[this.i]}'`);
    return node;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.i++;
      items.push(this.sequence());
    }
    return items.length === 1 ? items[0] : { t: "alt", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek()) {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { t: "cat", items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === "*" || c === "+" || c === "?") {
      this.i++;
      [min, max] = c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    } else if (c === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i, this.i + 12))) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i))!;
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      if (min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) throw new SafeRegexError(`a repetition count above ${MAX_COUNT}`);
      if (max < min) throw new SafeRegexError("numbers out of order in a {} quantifier");
    } else return atom;
    if (atom.t === "assert") throw new SafeRegexError("nothing to repeat");
    if (this.peek() === "?") this.i++;
    const q = this.peek();
    if (q === "*" || q === "+" || q === "?" || (q === "{" && /^\{\d+(,\d*)?\}/.test(this.src.slice(this.i, this.i + 12))))
      throw new SafeRegexError("nothing to repeat");
    return { t: "rep", node: atom, min, max };
  }

  private atom(): Node {
    const c = this.src[this.i++];
    switch (c) {
      case "(":
        return this.group();
      case "[":
        return { t: "set", set: this.charClass() };
      case ".":
        return { t: "set", set: ANY };
      case "^":
        return { t: "assert", kind: "bol" };
      case "$":
        return { t: "assert", kind: "eol" };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
        throw new SafeRegexError("nothing to repeat");
      default:
        return { t: "set", set: { neg: false, ranges: [c.charCodeAt(0), c.charCodeAt(0)] } };
    }
  }

  private group(): Node {
    if (this.peek() === "?") {
      const kind = this.src.slice(this.i, this.i + 3);
      if (kind.startsWith("?:")) this.i += 2;
      else if (kind.startsWith("?=") || kind.startsWith("?!") || kind === "?<=" || kind === "?<!") throw new SafeRegexError("lookarounds are not supported");
      else throw new SafeRegexError("only (...) and (?:...) groups are supported");
    }
    const inner = this.alternation();
    if (this.src[this.i++] !== ")") throw new SafeRegexError("missing ')'");
    return inner;
  }

  /** An escape outside a class: an assertion, a class or one character. */
  private escape(): Node {
    const c = this.src[this.i];
    if (c === "b" || c === "B") {
      this.i++;
      return { t: "assert", kind: c === "b" ? "word" : "nonword" };
    }
    return { t: "set", set: { neg: false, ranges: this.escapedRanges() } };
  }

  /** The ranges of an escape (after the backslash), in or out of a class. */
  private escapedRanges(): Ranges {
    const c = this.src[this.i++];
    if (c === undefined) throw new SafeRegexError("\\ at the end of the expression");
    const simple: Record<string, Ranges> = {
      d: DIGITS,
      D: complement(DIGITS),
      w: WORD,
      W: complement(WORD),
      s: SPACE,
      S: complement(SPACE),
      t: [9, 9],
      n: [10, 10],
      v: [11, 11],
      f: [12, 12],
      r: [13, 13],
    };
    if (simple[c]) return simple[c];
    if (c === "0" && !/\d/.test(this.peek() ?? "")) return [0, 0];
    if (/[1-9]/.test(c) || c === "k") throw new SafeRegexError("backreferences are not supported");
    const hex = c === "x" ? 2 : c === "u" ? 4 : 0;
    if (hex) {
      const digits = this.src.slice(this.i, this.i + hex);
      if (!new RegExp(`^[0-9a-fA-F]{${hex}}$`).test(digits)) throw new SafeRegexError(`\\${c} needs ${hex} hexadecimal digits`);
      this.i += hex;
      const code = parseInt(digits, 16);
      return [code, code];
    }
    if (/[A-Za-z0-9]/.test(c)) throw new SafeRegexError(`the escape \\${c} is not supported`);
    return [c.charCodeAt(0), c.charCodeAt(0)];
  }

  private charClass(): CharSet {
    const neg = this.peek() === "^";
    if (neg) this.i++;
    const ranges: Ranges = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new SafeRegexError("missing ']'");
      if (c === "]" && !first) break;
      first = false;
      const lo = this.classAtom();
      if (this.peek() === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined && lo.length === 2 && lo[0] === lo[1]) {
        this.i++;
        const hi = this.classAtom();
        if (hi.length !== 2 || hi[0] !== hi[1]) throw new SafeRegexError("a class escape cannot end a range");
        if (hi[0] < lo[0]) throw new SafeRegexError("a character range out of order");
        ranges.push(lo[0], hi[0]);
      } else ranges.push(...lo);
    }
    this.i++;
    return { neg, ranges: merge(ranges) };
  }

  private classAtom(): Ranges {
    const c = this.src[this.i++];
    if (c !== "\\") return [c.charCodeAt(0), c.charCodeAt(0)];
    // Inside a class \b is a backspace.
    if (this.peek() === "b") {
      this.i++;
      return [8, 8];
    }
    return this.escapedRanges();
  }
}

const enum Op {
  Set,
  Assert,
  Split,
  Jmp,
  Match,
}

interface Program {
  op: Op[];
  /** Set: the set; Assert: the kind. */
  arg: (CharSet | string | null)[];
  /** Split: the two targets; Jmp: x. */
  x: number[];
  y: number[];
}

function emit(p: Program, op: Op, arg: CharSet | string | null = null, x = -1, y = -1): number {
  if (p.op.length >= MAX_PROGRAM) throw new SafeRegexError("the expression is too large");
  p.op.push(op);
  p.arg.push(arg);
  p.x.push(x);
  p.y.push(y);
  return p.op.length - 1;
}

function compileNode(p: Program, n: Node): void {
  switch (n.t) {
    case "set":
      emit(p, Op.Set, n.set);
      return;
    case "assert":
      emit(p, Op.Assert, n.kind);
      return;
    case "cat":
      for (const item of n.items) compileNode(p, item);
      return;
    case "alt": {
      // split L1, next; L1: a; jmp end; next: split L2, ...; last
      const jumps: number[] = [];
      for (let k = 0; k < n.items.length - 1; k++) {
        const split = emit(p, Op.Split);
        p.x[split] = p.op.length;
        compileNode(p, n.items[k]);
        jumps.push(emit(p, Op.Jmp));
        p.y[split] = p.op.length;
      }
      compileNode(p, n.items[n.items.length - 1]);
      for (const j of jumps) p.x[j] = p.op.length;
      return;
    }
    case "rep": {
      for (let k = 0; k < n.min; k++) compileNode(p, n.node);
      if (n.max === Infinity) {
        const split = emit(p, Op.Split);
        p.x[split] = p.op.length;
        compileNode(p, n.node);
        emit(p, Op.Jmp, null, split);
        p.y[split] = p.op.length;
        return;
      }
      const splits: number[] = [];
      for (let k = n.min; k < n.max; k++) {
        const split = emit(p, Op.Split);
        p.x[split] = p.op.length;
        splits.push(split);
        compileNode(p, n.node);
      }
      for (const s of splits) p.y[s] = p.op.length;
    }
  }
}

/** Lower and upper case of every code unit (single units only), built on first use. */
let caseTables: { lower: Uint16Array; upper: Uint16Array } | null = null;

function cases(): { lower: Uint16Array; upper: Uint16Array } {
  if (!caseTables) {
    const lower = new Uint16Array(65536);
    const upper = new Uint16Array(65536);
    for (let c = 0; c < 65536; c++) {
      const ch = String.fromCharCode(c);
      const l = ch.toLowerCase();
      const u = ch.toUpperCase();
      lower[c] = l.length === 1 ? l.charCodeAt(0) : c;
      upper[c] = u.length === 1 ? u.charCodeAt(0) : c;
    }
    caseTables = { lower, upper };
  }
  return caseTables;
}

function inRanges(r: Ranges, c: number): boolean {
  for (let i = 0; i < r.length; i += 2) {
    if (c < r[i]) return false;
    if (c <= r[i + 1]) return true;
  }
  return false;
}

const isWord = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || c === 95 || (c >= 97 && c <= 122);

/** A compiled pattern: `test(text)` tells whether it matches anywhere in the text, in linear time. */
export class SafeRegex {
  private readonly prog: Program;
  /** Per instruction, the step it was last added in (a thread is added once per step). */
  private readonly seen: Int32Array;

  /** Throws SafeRegexError for a pattern outside the supported syntax or too large. */
  constructor(readonly source: string) {
    const prog: Program = { op: [], arg: [], x: [], y: [] };
    compileNode(prog, new Parser(source).parse());
    emit(prog, Op.Match);
    this.prog = prog;
    this.seen = new Int32Array(prog.op.length);
  }

  /** Instructions in the program (a match costs at most this many steps per character). */
  get size(): number {
    return this.prog.op.length;
  }

  test(text: string): boolean {
    const { op, arg, x, y } = this.prog;
    const { lower, upper } = cases();
    const seen = this.seen.fill(-1);
    const n = text.length;
    let step = 0;
    let current: number[] = [];
    let next: number[] = [];
    const stack: number[] = [];
    const wordAt = (i: number) => i >= 0 && i < n && isWord(text.charCodeAt(i));
    // Adds the thread at pc and everything reachable from it without reading a character; true at Match.
    const add = (list: number[], start: number, pos: number): boolean => {
      stack.push(start);
      while (stack.length) {
        const pc = stack.pop()!;
        if (seen[pc] === step) continue;
        seen[pc] = step;
        switch (op[pc]) {
          case Op.Match:
            stack.length = 0;
            return true;
          case Op.Jmp:
            stack.push(x[pc]);
            break;
          case Op.Split:
            stack.push(y[pc], x[pc]);
            break;
          case Op.Assert: {
            const kind = arg[pc];
            const boundary = wordAt(pos - 1) !== wordAt(pos);
            const holds = kind === "bol" ? pos === 0 : kind === "eol" ? pos === n : kind === "word" ? boundary : !boundary;
            if (holds) stack.push(pc + 1);
            break;
          }
          default:
            list.push(pc);
        }
      }
      return false;
    };
    // Unanchored: a thread starts at every position.
    if (add(current, 0, 0)) return true;
    for (let i = 0; i < n; i++) {
      step++;
      next.length = 0;
      const c = text.charCodeAt(i);
      const l = lower[c];
      const u = upper[c];
      for (const pc of current) {
        const set = arg[pc] as CharSet;
        const hit = inRanges(set.ranges, c) || inRanges(set.ranges, l) || inRanges(set.ranges, u);
        if (hit !== set.neg && add(next, pc + 1, i + 1)) return true;
      }
      if (add(next, 0, i + 1)) return true;
      [current, next] = [next, current];
    }
    return false;
  }
}
