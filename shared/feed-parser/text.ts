/**
 * Turning raw XML text into the values we keep: entities, CDATA, charsets, dates, durations.
 * fast-xml-parser runs with entity processing off (it roughly halves its speed), so every kept
 * value goes through decodeText / decodeEntities here, and only kept values pay for it.
 */
import { isUtf8 } from "node:buffer";

/** HTML 4 named entities: feeds use them without declaring them (&nbsp; &eacute; ...). */
const HTML_ENTITIES =
  "nbsp:a0 iexcl:a1 cent:a2 pound:a3 curren:a4 yen:a5 brvbar:a6 sect:a7 uml:a8 copy:a9 ordf:aa " +
  "laquo:ab not:ac shy:ad reg:ae macr:af deg:b0 plusmn:b1 sup2:b2 sup3:b3 acute:b4 micro:b5 para:b6 " +
  "middot:b7 cedil:b8 sup1:b9 ordm:ba raquo:bb frac14:bc frac12:bd frac34:be iquest:bf Agrave:c0 " +
  "Aacute:c1 Acirc:c2 Atilde:c3 Auml:c4 Aring:c5 AElig:c6 Ccedil:c7 Egrave:c8 Eacute:c9 Ecirc:ca " +
  "Euml:cb Igrave:cc Iacute:cd Icirc:ce Iuml:cf ETH:d0 Ntilde:d1 Ograve:d2 Oacute:d3 Ocirc:d4 " +
  "Otilde:d5 Ouml:d6 times:d7 Oslash:d8 Ugrave:d9 Uacute:da Ucirc:db Uuml:dc Yacute:dd THORN:de " +
  "szlig:df agrave:e0 aacute:e1 acirc:e2 atilde:e3 auml:e4 aring:e5 aelig:e6 ccedil:e7 egrave:e8 " +
  "eacute:e9 ecirc:ea euml:eb igrave:ec iacute:ed icirc:ee iuml:ef eth:f0 ntilde:f1 ograve:f2 " +
  "oacute:f3 ocirc:f4 otilde:f5 ouml:f6 divide:f7 oslash:f8 ugrave:f9 uacute:fa ucirc:fb uuml:fc " +
  "yacute:fd thorn:fe yuml:ff fnof:192 Alpha:391 Beta:392 Gamma:393 Delta:394 Epsilon:395 Zeta:396 " +
  "Eta:397 Theta:398 Iota:399 Kappa:39a Lambda:39b Mu:39c Nu:39d Xi:39e Omicron:39f Pi:3a0 Rho:3a1 " +
  "Sigma:3a3 Tau:3a4 Upsilon:3a5 Phi:3a6 Chi:3a7 Psi:3a8 Omega:3a9 alpha:3b1 beta:3b2 gamma:3b3 " +
  "delta:3b4 epsilon:3b5 zeta:3b6 eta:3b7 theta:3b8 iota:3b9 kappa:3ba lambda:3bb mu:3bc nu:3bd xi:3be " +
  "omicron:3bf pi:3c0 rho:3c1 sigmaf:3c2 sigma:3c3 tau:3c4 upsilon:3c5 phi:3c6 chi:3c7 psi:3c8 " +
  "omega:3c9 thetasym:3d1 upsih:3d2 piv:3d6 bull:2022 hellip:2026 prime:2032 Prime:2033 oline:203e " +
  "frasl:2044 weierp:2118 image:2111 real:211c trade:2122 alefsym:2135 larr:2190 uarr:2191 rarr:2192 " +
  "darr:2193 harr:2194 crarr:21b5 lArr:21d0 uArr:21d1 rArr:21d2 dArr:21d3 hArr:21d4 forall:2200 " +
  "part:2202 exist:2203 empty:2205 nabla:2207 isin:2208 notin:2209 ni:220b prod:220f sum:2211 " +
  "minus:2212 lowast:2217 radic:221a prop:221d infin:221e ang:2220 and:2227 or:2228 cap:2229 cup:222a " +
  "int:222b there4:2234 sim:223c cong:2245 asymp:2248 ne:2260 equiv:2261 le:2264 ge:2265 sub:2282 " +
  "sup:2283 nsub:2284 sube:2286 supe:2287 oplus:2295 otimes:2297 perp:22a5 sdot:22c5 lceil:2308 " +
  "rceil:2309 lfloor:230a rfloor:230b lang:27e8 rang:27e9 loz:25ca spades:2660 clubs:2663 hearts:2665 " +
  "diams:2666 quot:22 amp:26 lt:3c gt:3e apos:27 OElig:152 oelig:153 Scaron:160 scaron:161 Yuml:178 " +
  "circ:2c6 tilde:2dc ensp:2002 emsp:2003 thinsp:2009 zwnj:200c zwj:200d lrm:200e rlm:200f ndash:2013 " +
  "mdash:2014 lsquo:2018 rsquo:2019 sbquo:201a ldquo:201c rdquo:201d bdquo:201e dagger:2020 " +
  "Dagger:2021 permil:2030 lsaquo:2039 rsaquo:203a euro:20ac";

const NAMED = Object.create(null) as Record<string, string>;
for (const pair of HTML_ENTITIES.split(" ")) {
  const [name, hex] = pair.split(":");
  NAMED[name] = String.fromCodePoint(...hex.split("+").map((h) => parseInt(h, 16)));
}

function entity(s: string, start: number, end: number): string | undefined {
  if (s.charCodeAt(start) !== 35) return NAMED[s.slice(start, end)]; // not "#"
  const hex = s.charCodeAt(start + 1) === 120 || s.charCodeAt(start + 1) === 88; // "x" / "X"
  const digits = s.slice(start + (hex ? 2 : 1), end);
  if (!(hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) return undefined;
  const cp = parseInt(digits, hex ? 16 : 10);
  // Surrogates and out-of-range code points are not characters: keep the text as written.
  return cp > 0 && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? String.fromCodePoint(cp) : undefined;
}

/**
 * Decodes XML, numeric and HTML 4 named entities; unknown ones stay as text. A hand-written scan:
 * escaped-HTML descriptions hold thousands of entities, and a regex with a replacer callback is
 * noticeably slower on them.
 */
export function decodeEntities(s: string): string {
  let amp = s.indexOf("&");
  if (amp === -1) return s;
  let out = "";
  let last = 0;
  while (amp !== -1) {
    const semi = s.indexOf(";", amp + 2);
    if (semi === -1) break;
    const value = semi - amp <= 33 ? entity(s, amp + 1, semi) : undefined;
    if (value === undefined) {
      amp = s.indexOf("&", amp + 1);
    } else {
      out += s.slice(last, amp) + value;
      last = semi + 1;
      amp = s.indexOf("&", last);
    }
  }
  return last === 0 ? s : out + s.slice(last);
}

/**
 * Decodes text that may still hold CDATA sections (the raw body of a stop node): CDATA is literal,
 * everything around it is entity-decoded.
 */
export function decodeText(s: string): string {
  let open = s.indexOf("<![CDATA[");
  if (open === -1) return decodeEntities(s);
  let out = "";
  let pos = 0;
  while (open !== -1) {
    out += decodeEntities(s.slice(pos, open));
    const close = s.indexOf("]]>", open + 9);
    if (close === -1) return out + s.slice(open + 9);
    out += s.slice(open + 9, close);
    pos = close + 3;
    open = s.indexOf("<![CDATA[", pos);
  }
  return out + decodeEntities(s.slice(pos));
}

const utf8 = new TextDecoder("utf-8");

/** Windows-1252 characters of bytes 0x80-0x9F (undefined bytes keep their code point). */
const CP1252_HIGH =
  "\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f" +
  "\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178";
/** Labels that mean Windows-1252 (the WHATWG Encoding list: ISO-8859-1 and ASCII too, as browsers do). */
const CP1252_LABELS = new Set([
  "windows-1252",
  "cp1252",
  "x-cp1252",
  "iso-8859-1",
  "iso8859-1",
  "iso_8859-1",
  "latin1",
  "l1",
  "us-ascii",
  "ascii",
  "cp819",
  "ibm819",
]);

/**
 * Node 20's TextDecoder("windows-1252") decodes as ISO-8859-1 (0x93 stays U+0093 instead of a curly
 * quote), so feeds full of Word's smart quotes lost them: map the 0x80-0x9F range ourselves.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
  return latin1.replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}

function decodeAs(label: string, bytes: Uint8Array): string | null {
  if (CP1252_LABELS.has(label)) return decodeWindows1252(bytes);
  try {
    return new TextDecoder(label).decode(bytes);
  } catch {
    return null; // label unknown to this ICU build
  }
}

/**
 * Bytes to text. A BOM wins; otherwise the XML declaration (or the HTTP charset) is believed
 * only when the bytes agree with it: valid UTF-8 labelled ISO-8859-1 is UTF-8 (a Latin-1 text
 * with accents is practically never valid UTF-8), and invalid UTF-8 labelled UTF-8 is
 * Windows-1252, the usual culprit.
 */
export function decodeBytes(buf: Uint8Array, charset?: string): string {
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) return utf8.decode(buf.subarray(3));
  if (buf[0] === 0xff && buf[1] === 0xfe) return decodeAs("utf-16le", buf.subarray(2)) as string;
  if (buf[0] === 0xfe && buf[1] === 0xff) return decodeAs("utf-16be", buf.subarray(2)) as string;
  if (buf[0] === 0x3c && buf[1] === 0 && buf[2] === 0x3f && buf[3] === 0) return decodeAs("utf-16le", buf) as string;
  if (buf[0] === 0 && buf[1] === 0x3c && buf[2] === 0 && buf[3] === 0x3f) return decodeAs("utf-16be", buf) as string;

  if (isUtf8(buf)) return utf8.decode(buf);
  const head = Buffer.from(buf.buffer, buf.byteOffset, Math.min(buf.length, 512)).toString("latin1");
  const declared = /<\?xml[^>]*?encoding\s*=\s*["']\s*([A-Za-z0-9._:-]+)/i.exec(head)?.[1] ?? charset;
  const label = declared?.toLowerCase();
  if (label && !label.startsWith("utf")) {
    const text = decodeAs(label, buf);
    if (text !== null) return text;
  }
  return decodeWindows1252(buf);
}

/** yes/true/explicit -> true; anything else (no/false/clean/garbage) -> false. */
export function parseExplicit(s: string): boolean {
  const v = s.trim().toLowerCase();
  return v === "yes" || v === "true" || v === "explicit" || v === "1";
}

/** "3600", "3600.5", "59:30", "1:02:03" (also "1:2:3") -> whole seconds; anything else -> null. */
export function parseDuration(s: string): number | null {
  const v = s.trim();
  if (v === "") return null;
  if (v.indexOf(":") === -1) {
    const n = Number(v);
    return Number.isFinite(n) && n >= 0 ? Math.round(n) : null;
  }
  const parts = v.split(":");
  if (parts.length > 3) return null;
  let total = 0;
  for (const p of parts) {
    const n = p === "" ? 0 : Number(p);
    if (!Number.isFinite(n) || n < 0) return null;
    total = total * 60 + n;
  }
  return Math.round(total);
}

/** Non-negative integer from digits ("1234", " 1234 ", "1234.0"); null otherwise. */
export function parseIntOrNull(s: string | null): number | null {
  if (s === null) return null;
  const n = parseFloat(s);
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : null;
}

export function parseNumberOrNull(s: string | null): number | null {
  if (s === null) return null;
  const n = parseFloat(s);
  return Number.isFinite(n) ? n : null;
}

// Zones that Date.parse does not know but real feeds use.
const ZONES: Record<string, string> = {
  CEST: "+0200",
  CET: "+0100",
  MESZ: "+0200",
  MEZ: "+0100",
  BST: "+0100",
  IST: "+0530",
  EEST: "+0300",
  EET: "+0200",
  WEST: "+0100",
  WET: "+0000",
  MSK: "+0300",
  JST: "+0900",
  KST: "+0900",
  HKT: "+0800",
  SGT: "+0800",
  AWST: "+0800",
  ACST: "+0930",
  ACDT: "+1030",
  AEST: "+1000",
  AEDT: "+1100",
  NZST: "+1200",
  NZDT: "+1300",
  AKST: "-0900",
  AKDT: "-0800",
  HST: "-1000",
  ADT: "-0300",
  AST: "-0400",
  NDT: "-0230",
  NST: "-0330",
  UTC: "+0000",
};

// German, French and Dutch month names that Date.parse rejects, mapped to English.
const MONTHS: Record<string, string> = {
  januar: "Jan",
  janvier: "Jan",
  januari: "Jan",
  jänner: "Jan",
  februar: "Feb",
  février: "Feb",
  fevrier: "Feb",
  februari: "Feb",
  märz: "Mar",
  mär: "Mar",
  mrz: "Mar",
  mars: "Mar",
  maart: "Mar",
  avril: "Apr",
  mai: "May",
  mei: "May",
  juni: "Jun",
  juin: "Jun",
  juli: "Jul",
  juillet: "Jul",
  août: "Aug",
  aout: "Aug",
  augustus: "Aug",
  okt: "Oct",
  oktober: "Oct",
  octobre: "Oct",
  dez: "Dec",
  dezember: "Dec",
  décembre: "Dec",
  decembre: "Dec",
  december: "Dec",
};

function toIso(ms: number): string | null {
  if (!Number.isFinite(ms)) return null;
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  return year >= 1900 && year < 10000 ? d.toISOString() : null;
}

/**
 * RFC 822 / RFC 3339 dates and the usual real-world deviations (unknown zone names, localized
 * month names, missing or wrong weekdays, "dd.mm.yyyy") -> ISO string; null when unparseable.
 */
/** Ends in a time of day with no zone; group 1 is the "T" of the ISO form. */
const ZONELESS_TIME = /(?:\s|(T))\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)?$/;

export function parseDate(s: string): string | null {
  // A time without colon after the year ("03 Apr 02 1500 GMT") is read by Date.parse as nothing.
  const v = s.trim().replace(/( \d{2}| \d{4}) (\d\d)(\d\d)((?: +\S+)?)$/, "$1 $2:$3$4");
  // Date.parse happily reads "garbage 12" as a date: demand enough digits for day + year.
  let digits = 0;
  for (let i = 0; i < v.length && digits < 5; i++) {
    const c = v.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  if (digits < 5) return null;
  const dmy = /^(\d{1,2})\.(\d{1,2})\.(\d{4})(.*)$/.exec(v);
  if (dmy) return toIso(Date.parse(`${dmy[3]}-${dmy[2].padStart(2, "0")}-${dmy[1].padStart(2, "0")}${dmy[4] ? "T" + dmy[4].trim() + "Z" : ""}`));
  // A time with no zone after it would be read in the server's own zone: read it as UTC on every server.
  const zoneless = ZONELESS_TIME.exec(v);
  const direct = toIso(Date.parse(zoneless ? v + (zoneless[1] ? "Z" : " UTC") : v));
  if (direct !== null) return direct;
  const cleaned = v
    .replace(/^[^\d,]*,\s*/, "") // weekday in any language
    .replace(/\([^)]*\)/g, " ")
    .replace(/[A-Za-zÀ-ÿ]+\.?/g, (w) => {
      const word = w.replace(/\.$/, "");
      return ZONES[word.toUpperCase()] ?? MONTHS[word.toLowerCase()] ?? word;
    });
  return toIso(Date.parse(cleaned));
}
