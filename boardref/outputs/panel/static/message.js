// @ts-check
// The word tables' message format, as the service's engines/words.py reads it: ICU-style
// {name}, {count, plural, one {# place} other {# places}}, {n, selectordinal, ...},
// {kind, select, die {...} other {...}} and {seat, case, dat} (words said in a
// grammatical case: the named words get ``case`` among their values). ``{{`` and ``}}``
// outside any placeholder are braces. Plurals follow the browser's Intl.PluralRules
// for the page's language, so a page and the service say a count alike. It must never
// know a word of any language: those are the tables'.

const NUMBER = Symbol("#");
const BRANCHING = ["plural", "selectordinal", "select"];
const parsedTemplates = new Map();
const rules = new Map();

// The CLDR category of ``count`` in ``lang`` ("one", "two", "few", "other" ...).
export function pluralForm(lang, count, ordinal = false) {
  const id = `${lang}:${ordinal}`;
  if (!rules.has(id)) rules.set(id, new Intl.PluralRules(lang, { type: ordinal ? "ordinal" : "cardinal" }));
  return rules.get(id).select(count);
}

// ``template`` filled with ``values`` in ``lang``; ``valueWords(value, name, grammaticalCase)``
// says one value. At ``top`` a sentence that opens with words (a seat's name) opens
// with a capital.
export function formatMessage(template, values, lang, valueWords, top = false) {
  const parts = parsed(template);
  const text = fill(parts, values, lang, valueWords, null);
  const first = parts[0];
  const opensWithWords = Array.isArray(first) && (first[1] === null || first[1] === "case")
    && values[first[0]] && typeof values[first[0]] === "object" && "key" in values[first[0]];
  return top && opensWithWords ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

function fill(parts, values, lang, valueWords, number) {
  return parts.map((part) => {
    if (part === NUMBER) return String(number);
    if (typeof part === "string") return part;
    return argument(part, values, lang, valueWords, number);
  }).join("");
}

function argument([name, kind, style], values, lang, valueWords, number) {
  if (kind === "select") {
    const branch = style[String(values[name])] || style.other || [];
    return fill(branch, values, lang, valueWords, number);
  }
  if (!(name in values)) return `{${name}}`;
  const value = values[name];
  if (kind === null || kind === "case") return valueWords(value, name, style);
  const exact = `=${value}`;
  const chosen = exact in style ? exact : pluralForm(lang, Number(value), kind === "selectordinal");
  return fill(style[chosen] || style.other || [], values, lang, valueWords, value);
}

function parsed(template) {
  if (!parsedTemplates.has(template)) parsedTemplates.set(template, parse(template, 0, false, false)[0]);
  return parsedTemplates.get(template);
}

// Parts of ``text`` from ``i``: strings, NUMBER and [name, kind, style] arguments (a
// branching argument's style maps each selector to its parts); and where it ended.
function parse(text, i, nested, counted) {
  const parts = [];
  let plain = "";
  while (i < text.length) {
    const char = text[i];
    if (!nested && (text.startsWith("{{", i) || text.startsWith("}}", i))) {
      plain += char;
      i += 2;
    } else if (char === "}") {
      break;
    } else if (char === "#" && counted) {
      parts.push(plain, NUMBER);
      plain = "";
      i += 1;
    } else if (char === "{") {
      parts.push(plain);
      plain = "";
      const [arg, next] = parseArgument(text, i + 1);
      parts.push(arg);
      i = next;
    } else {
      plain += char;
      i += 1;
    }
  }
  parts.push(plain);
  return [parts.filter((p) => p !== ""), i];
}

function parseArgument(text, i) {
  const close = text.indexOf("}", i);
  const brace = text.indexOf("{", i);
  if (close < 0) return [[text.slice(i), null, null], text.length];
  const headEnd = brace < 0 || close < brace ? close : brace;
  const fields = text.slice(i, headEnd).split(",").map((f) => f.trim());
  const [name, kind = null] = fields;
  if (!BRANCHING.includes(kind)) return [[name, kind, fields[2] ?? null], close + 1];
  const branches = {};
  let selector = fields[2] ?? "";
  i = headEnd;
  while (i < text.length) {
    if (text[i] === "}") return [[name, kind, branches], i + 1];
    if (text[i] === "{") {
      const [branch, end] = parse(text, i + 1, true, kind !== "select");
      branches[selector.trim()] = branch;
      i = end + 1;
      selector = "";
    } else {
      selector += text[i];
      i += 1;
    }
  }
  return [[name, kind, branches], i];
}
