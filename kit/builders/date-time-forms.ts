/**
 * The RFC 3339 date-time forms the platforms integrators use write (docs/traffic.md, "Date-time forms"): `Z` or a
 * numeric offset, no fraction or one to nine fraction digits, the `T` and `Z` in upper case. Each is sent once a run as
 * the current instant. Forms outside RFC 3339 that some platforms also write (no offset, no seconds, a space separator,
 * lower-case t or z, -00:00 for an unknown offset) are never sent as valid.
 */
export interface DateTimeForm {
  id: string;
  /** Who writes it, as the test title and docs/traffic.md name it. */
  name: string;
  /** Fraction digits written (0: none). */
  digits: number;
  /** The offset written: 'Z', or minutes east of UTC written numerically (0: +00:00). */
  offset: 'Z' | number;
}

export const dateTimeForms: readonly DateTimeForm[] = [
  { id: 'z-0', name: "Z, no fraction (Go's time.RFC3339 in UTC)", digits: 0, offset: 'Z' },
  { id: 'offset-0-negative', name: "-07:00, no fraction (PHP's date('c') west of UTC)", digits: 0, offset: -420 },
  { id: 'z-1', name: 'Z, one fraction digit', digits: 1, offset: 'Z' },
  { id: 'offset-2', name: '+01:00, two fraction digits', digits: 2, offset: 60 },
  { id: 'z-3', name: "Z, three fraction digits (JavaScript's toISOString)", digits: 3, offset: 'Z' },
  { id: 'z-4', name: 'Z, four fraction digits', digits: 4, offset: 'Z' },
  { id: 'offset-5', name: '-03:30, five fraction digits', digits: 5, offset: -210 },
  { id: 'utc-6', name: "+00:00, six fraction digits (Python's isoformat of an aware datetime)", digits: 6, offset: 0 },
  { id: 'z-6', name: "Z, six fraction digits (Java's Instant on Linux)", digits: 6, offset: 'Z' },
  {
    id: 'offset-7',
    name: "+05:30, seven fraction digits (.NET's round-trip format of a DateTimeOffset)",
    digits: 7,
    offset: 330,
  },
  { id: 'z-7', name: "Z, seven fraction digits (.NET's round-trip format of a UTC DateTime)", digits: 7, offset: 'Z' },
  { id: 'offset-8', name: '-10:00, eight fraction digits', digits: 8, offset: -600 },
  { id: 'z-9', name: "Z, nine fraction digits (Go's time.RFC3339Nano)", digits: 9, offset: 'Z' },
];

const two = (n: number) => String(n).padStart(2, '0');

/**
 * The instant `epochMs` (plus `subMillisecond` nanoseconds, 0 to 999,999) written in the form: the wall-clock time at
 * the form's offset, the fraction cut to its digits.
 */
export function writeDateTime(form: DateTimeForm, epochMs: number, subMillisecond = 0): string {
  const minutes = form.offset === 'Z' ? 0 : form.offset;
  const at = new Date(epochMs + minutes * 60_000);
  const date = `${at.getUTCFullYear()}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}`;
  const time = `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}:${two(at.getUTCSeconds())}`;
  const nanos = `${String(at.getUTCMilliseconds()).padStart(3, '0')}${String(subMillisecond).padStart(6, '0')}`;
  const fraction = form.digits === 0 ? '' : `.${nanos.slice(0, form.digits)}`;
  const sign = minutes < 0 ? '-' : '+';
  const offset =
    form.offset === 'Z' ? 'Z' : `${sign}${two(Math.floor(Math.abs(minutes) / 60))}:${two(Math.abs(minutes) % 60)}`;
  return `${date}T${time}${fraction}${offset}`;
}
