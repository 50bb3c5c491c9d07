// Values a run reports (what the target answered, titles, causes, commands) put into Markdown so that they read as
// they are and never change the document around them: prose escaped, code in spans and fences longer than any run of
// backticks in it, long lines wrapped only between words, never inside a code span, a link or a digest.

/** The longest run of backticks in a text (0 when it holds none). */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/**
 * A value as inline prose: on one line, every character that could open a code span, emphasis, a link, an HTML tag, a
 * table cell or an entity escaped. An underscore inside a word (grant_type) opens nothing and is left as it is.
 */
export function inline(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[\\`*[\]<>|~&]/g, '\\$&')
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_');
}

/** A value as a code span: shown exactly (on one line), whatever backticks it holds. */
export function code(text: string): string {
  const flat = text.replace(/[\r\n]+/g, ' ');
  if (flat === '') return '';
  const ticks = '`'.repeat(longestBacktickRun(flat) + 1);
  // One space each side is taken off a span that begins and ends with one: added where the value needs it kept.
  const pad = /^[ `]|[ `]$/.test(flat) ? ' ' : '';
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** A value of a list (an environment's): a URL or a digest as code (whole, never linked or wrapped), anything else as prose. */
export const shownValue = (value: string): string =>
  /^[a-z][a-z0-9+.-]*:\/\/|^[0-9a-f]{40,}$/i.test(value) ? code(value) : inline(value);

/** A fenced block holding the text exactly, line for line: its fence is longer than any run of backticks in it. */
export function fenced(text: string, info = ''): string[] {
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
  return [`${fence}${info}`, ...text.split('\n'), fence];
}

/** The text escaped for the HTML of a details block's summary. */
export function htmlText(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}

/**
 * Where a Markdown line may be broken: at a space outside any code span, escape or autolink, before a letter (a word
 * beginning with a digit or a sign could start a list, a heading, a quote or a fence on the next line).
 */
function breakPoints(line: string): number[] {
  const points: number[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '`') {
      const open = (/^`+/.exec(line.slice(i)) as RegExpExecArray)[0];
      // The span ends at the next run of exactly as many backticks; without one, the run is literal text.
      const runs = /`+/g;
      runs.lastIndex = i + open.length;
      let end = i + open.length;
      for (let run = runs.exec(line); run; run = runs.exec(line)) {
        if (run[0].length !== open.length) continue;
        end = run.index + run[0].length;
        break;
      }
      i = end;
      continue;
    }
    if (c === '<') {
      const close = line.indexOf('>', i);
      i = close < 0 ? i + 1 : close + 1;
      continue;
    }
    if (c === ' ' && i > 0 && /\p{L}/u.test(line[i + 1] ?? '')) points.push(i);
    i += 1;
  }
  return points;
}

/**
 * A line of prose wrapped to at most `width` characters where it can be, the continuation lines indented by `indent`
 * (a list item's). A code span, a digest or a word longer than the width stays whole on a longer line.
 */
export function wrap(line: string, width: number, indent = ''): string[] {
  if (line.length <= width) return [line];
  const lines: string[] = [];
  let rest = line;
  let prefix = '';
  while (prefix.length + rest.length > width) {
    const room = width - prefix.length;
    const points = breakPoints(rest);
    const at = [...points].reverse().find((p) => p <= room) ?? points[0];
    if (at === undefined) break;
    lines.push(`${prefix}${rest.slice(0, at)}`);
    rest = rest.slice(at + 1);
    prefix = indent;
  }
  lines.push(`${prefix}${rest}`);
  return lines;
}
