/**
 * Time values of the Graph API: `since` / `until` (query parameters and the `.since(t)` / `.until(t)` field-expansion
 * modifiers) take "a unix timestamp or any strtotime-style value"; timestamps are rendered as `2017-05-19T23:27:28+0000`.
 *
 * `parseGraphTime` understands a unix timestamp, ISO 8601 / RFC 3339 dates and times, the keywords `now`, `today`,
 * `midnight`, `noon`, `yesterday`, `tomorrow`, weekday names and relative offsets, with PHP strtotime's semantics for all
 * of them (the server's default zone is UTC). It is a small scanner over a closed set of tokens, not a full strtotime: what
 * it does not know is reported as not understood rather than guessed at.
 *
 * How a string is evaluated, as strtotime does it:
 *   1. Tokens set absolute parts (a date, a time of day, a zone) or accumulate relative ones (years … seconds, a weekday);
 *      the order of absolute and relative tokens does not matter, except that `today`, `midnight`, `yesterday`,
 *      `tomorrow` and weekday names reset the time of day to 00:00 when they are read, `noon` sets it to 12:00, and
 *      `yesterday` / `tomorrow` *assign* the relative day count (-1 / +1) rather than add to it.
 *   2. Missing parts come from `now`, seen on the wall clock of the zone (UTC unless one is given); a date without a time
 *      is at 00:00.
 *   3. A weekday moves the date to that day of the week, then the relative parts are added field by field and the result
 *      is normalised the way mktime does it: 2023-01-31 +1 month is "2023-02-31", that is 2023-03-03.
 *
 * Where it differs from strtotime on purpose:
 *   - bare digits are unix seconds (the Graph rule; strtotime wants `@`); instants before 1970 or after 9999 and
 *     impossible dates or times (2024-02-30, 24:30) are refused instead of rolled over;
 *   - a zone is applied to `now` as well: `now +0200` is now, `today +0200` is midnight at +02:00 (strtotime takes the UTC
 *     date and clock and reads them in the zone, making `now +0200` two hours ago);
 *   - two zones, `ago` after a weekday, and `@<seconds>` with a date or a time of day are refused (strtotime gives odd
 *     results);
 *   - fractions of a second are kept to the millisecond;
 *   - only the forms listed above: no month names, slashed or compact dates, am/pm, ordinals (`first monday`),
 *     `weekday` units, `<number> <day name>`, or commas as separators.
 */

/** Relative time accumulated while scanning, in calendar fields (never converted to a duration before step 3). */
interface Relative {
  years: number;
  months: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** A weekday to move to: 0 = Sunday … 6 = Saturday; `behavior` as strtotime's (see `adjustToWeekday`). */
interface WeekdayMove {
  day: number;
  behavior: 0 | 1 | 2;
}

interface Clock {
  hours: number;
  minutes: number;
  seconds: number;
  milliseconds: number;
}

interface ParseState {
  date: { year: number; month: number; day: number } | undefined;
  /** Time of day; undefined = take it from `now` (or 00:00 when a date was given). */
  clock: Clock | undefined;
  /** True when a time of day was written explicitly (or by `noon`): a second one is an error, as in strtotime. */
  haveTime: boolean;
  /** Offset east of UTC in minutes, when the text names a zone. */
  zone: number | undefined;
  relative: Relative;
  weekday: WeekdayMove | undefined;
  /** Whether the previous token was a time of day (a short zone such as `Z` or `+02` may only follow one). */
  afterTime: boolean;
}

/** Unit words and what one of them adds. `week` has its own meaning after next/last/this (see `relativeTextUnit`). */
const UNITS: ReadonlyMap<string, { field: keyof Relative; multiplier: number }> = new Map(
  (
    [
      [['sec', 'secs', 'second', 'seconds'], 'seconds', 1],
      [['min', 'mins', 'minute', 'minutes'], 'minutes', 1],
      [['hour', 'hours'], 'hours', 1],
      [['day', 'days'], 'days', 1],
      [['week', 'weeks'], 'days', 7],
      // strtotime also accepts the misspelling "forthnight".
      [['fortnight', 'fortnights', 'forthnight', 'forthnights'], 'days', 14],
      [['month', 'months'], 'months', 1],
      [['year', 'years'], 'years', 1],
    ] as const
  ).flatMap(([words, field, multiplier]) => words.map((word) => [word, { field, multiplier }] as const)),
);

/** Day names, full and three-letter, to 0 = Sunday … 6 = Saturday. */
const WEEKDAYS: ReadonlyMap<string, number> = new Map(
  ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].flatMap((name, index) => [
    [name, index] as const,
    [name.slice(0, 3), index] as const,
  ]),
);

/** next / last / previous / this: the amount they stand for and their weekday behaviour. */
const RELATIVE_TEXT: ReadonlyMap<string, { amount: number; behavior: 0 | 1 }> = new Map([
  ['next', { amount: 1, behavior: 0 }],
  ['last', { amount: -1, behavior: 0 }],
  ['previous', { amount: -1, behavior: 0 }],
  ['this', { amount: 0, behavior: 1 }],
]);

const MIN_TIME_MS = Date.UTC(1970, 0, 1);
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Longest run of digits read as a number, so that arithmetic stays exact (2^53 has 16 digits). */
const MAX_NUMBER_DIGITS = 12;

// Token patterns, all sticky (matched at the scanner's position) and applied to lower-cased text.
const DATE = /(\d{4})-(\d{1,2})-(\d{1,2})(?![\d-])/y;
const TIME = /(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(?![\d:.])/y;
const ZONE_NAME = /(z|utc|gmt)(?![a-z])/y;
const ZONE_OFFSET = /([+-])(\d{2})(?::?(\d{2}))?(?!\d)/y;
const NUMBER_UNIT = /([+-]?)(\d+)\s*([a-z]+)/y;
const AT_TIMESTAMP = /@(-?\d+)(?!\d)/y;
const WORD = /([a-z]+)/y;
const NEXT_WORD = /\s*([a-z]+)/y;
const BLANKS = /\s*/y;
const UNIX_SECONDS = /^\d+$/;

class NotUnderstood extends Error {}

/**
 * The instant a Graph `since` / `until` value names, or undefined when the text is not understood or lies outside the
 * years 1970–9999.
 *
 * @param text a unix timestamp in seconds (digits only), or a strtotime-style value; case and surrounding blanks ignored
 * @param now the current time, which relative values are relative to
 */
export function parseGraphTime(text: string, now: Date): Date | undefined {
  const input = text.trim().toLowerCase();
  if (input === '' || Number.isNaN(now.getTime())) return undefined;
  // Graph's own extension to strtotime (which needs "@" for this): bare digits are unix seconds.
  if (UNIX_SECONDS.test(input)) {
    const digits = input.replace(/^0+(?=\d)/, '');
    return digits.length > MAX_NUMBER_DIGITS ? undefined : inRange(Number(digits) * 1000);
  }
  try {
    return inRange(evaluate(scan(input), now));
  } catch (error) {
    if (error instanceof NotUnderstood) return undefined;
    throw error;
  }
}

/** Whole unix seconds of a date (rounded down, so the second a date falls in). */
export function toUnixSeconds(date: Date): number {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid date');
  return Math.floor(ms / 1000);
}

/** A date in the Graph timestamp format, `2017-05-19T23:27:28+0000`: UTC, whole seconds (fractions dropped), `+0000`. */
export function formatGraphTimestamp(date: Date): string {
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new RangeError('Invalid date');
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new RangeError(`Year ${year} has no four-digit Graph timestamp`);
  return `${date.toISOString().slice(0, 19)}+0000`;
}

function inRange(ms: number): Date | undefined {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? new Date(ms) : undefined;
}

function scan(input: string): ParseState {
  const state: ParseState = {
    date: undefined,
    clock: undefined,
    haveTime: false,
    zone: undefined,
    relative: { years: 0, months: 0, days: 0, hours: 0, minutes: 0, seconds: 0 },
    weekday: undefined,
    afterTime: false,
  };
  let position = 0;

  /** Matches a sticky pattern at the current position (after blanks when `skipBlanks`), advancing past it on success. */
  const take = (pattern: RegExp, skipBlanks = false): RegExpExecArray | undefined => {
    let start = position;
    if (skipBlanks) {
      BLANKS.lastIndex = start;
      BLANKS.exec(input);
      start = BLANKS.lastIndex;
    }
    pattern.lastIndex = start;
    const match = pattern.exec(input);
    if (!match) return undefined;
    position = pattern.lastIndex;
    return match;
  };

  for (;;) {
    // A zone may follow a time of day directly (`12:00Z`, `12:00:00+0000`) or after blanks; elsewhere only a long form.
    const zone = takeZone(input, position, state.afterTime);
    state.afterTime = false;
    // Tokens are separated by blanks or punctuation (`+1day+2hours`), never run together (`today2`, `12:00now`).
    if (position > 0 && !zone && /[a-z\d]/.test(input[position] ?? '')) throw new NotUnderstood();
    if (zone) {
      setZone(state, zone.offset);
      position = zone.end;
      continue;
    }
    take(BLANKS);
    if (position >= input.length) return state;

    let match: RegExpExecArray | undefined;
    if ((match = take(DATE))) {
      setDate(state, Number(match[1]), Number(match[2]), Number(match[3]));
      if (input[position] === 't') {
        position += 1;
        const time = take(TIME);
        if (!time) throw new NotUnderstood();
        setTime(state, time);
      }
    } else if ((match = take(TIME))) {
      setTime(state, match);
    } else if ((match = take(NUMBER_UNIT))) {
      addNumberUnit(state, match[1] === '-' ? -1 : 1, match[2]!, match[3]!);
    } else if ((match = take(AT_TIMESTAMP))) {
      setUnixTimestamp(state, match[1]!);
    } else if ((match = take(WORD))) {
      const word = match[1]!;
      const text = RELATIVE_TEXT.get(word);
      if (text) {
        // next / last / previous / this need a unit or a day name after at least one blank.
        if (!/\s/.test(input[position] ?? '')) throw new NotUnderstood();
        const unit = take(WORD, true);
        if (!unit) throw new NotUnderstood();
        relativeTextUnit(state, text.amount, text.behavior, unit[1]!);
      } else {
        keyword(state, word);
      }
    } else {
      throw new NotUnderstood();
    }
  }
}

/**
 * A zone at `position`: `UTC` / `GMT`, or `±HHMM` / `±HH:MM`; directly after a time of day also `Z` and `±HH`. A signed
 * number followed by a unit word is a relative offset (`12:00 +10 days`), never a zone.
 */
function takeZone(input: string, position: number, afterTime: boolean): { offset: number; end: number } | undefined {
  BLANKS.lastIndex = position;
  BLANKS.exec(input);
  const start = BLANKS.lastIndex;

  ZONE_NAME.lastIndex = start;
  const name = ZONE_NAME.exec(input);
  if (name) return name[1] === 'z' && !afterTime ? undefined : { offset: 0, end: ZONE_NAME.lastIndex };

  ZONE_OFFSET.lastIndex = start;
  const offset = ZONE_OFFSET.exec(input);
  if (!offset) return undefined;
  const end = ZONE_OFFSET.lastIndex;
  if (offset[3] === undefined && !afterTime) return undefined;
  if (followedByUnit(input, end)) return undefined;
  const hours = Number(offset[2]);
  const minutes = offset[3] === undefined ? 0 : Number(offset[3]);
  if (hours > 23 || minutes > 59) throw new NotUnderstood();
  return { offset: (offset[1] === '-' ? -1 : 1) * (hours * 60 + minutes), end };
}

function followedByUnit(input: string, position: number): boolean {
  NEXT_WORD.lastIndex = position;
  const match = NEXT_WORD.exec(input);
  return match !== null && UNITS.has(match[1]!);
}

function setZone(state: ParseState, offset: number): void {
  // strtotime quietly keeps the first of two zones; two zones are more likely a mistake than a request.
  if (state.zone !== undefined) throw new NotUnderstood();
  state.zone = offset;
}

function setDate(state: ParseState, year: number, month: number, day: number): void {
  if (state.date) throw new NotUnderstood();
  // strtotime rolls 2024-02-30 over to 2024-03-01; an impossible date is refused here instead.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw new NotUnderstood();
  state.date = { year, month, day };
}

function setTime(state: ParseState, match: RegExpExecArray): void {
  if (state.haveTime) throw new NotUnderstood();
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  const seconds = match[3] === undefined ? 0 : Number(match[3]);
  const fraction = match[4] ?? '';
  const milliseconds = Number(fraction.slice(0, 3).padEnd(3, '0'));
  // 24:00 is the end of the day (ISO 8601 and strtotime); a leap second :60 rolls over, as in strtotime.
  const endOfDay = hours === 24 && minutes === 0 && seconds === 0 && /^0*$/.test(fraction);
  if ((hours > 23 && !endOfDay) || minutes > 59 || seconds > 60) throw new NotUnderstood();
  state.clock = { hours, minutes, seconds, milliseconds };
  state.haveTime = true;
  state.afterTime = true;
}

/**
 * `@<seconds>`: strtotime's unix timestamp. As strtotime does, it stands for 1970-01-01 00:00 UTC plus a relative number
 * of seconds, so offsets after it are added to the epoch first (`@1700000000 +1 month` is 31 days later) and `ago`
 * negates it too.
 */
function setUnixTimestamp(state: ParseState, digits: string): void {
  if (digits.replace('-', '').length > MAX_NUMBER_DIGITS) throw new NotUnderstood();
  setDate(state, 1970, 1, 1);
  if (state.haveTime) throw new NotUnderstood();
  state.clock = { hours: 0, minutes: 0, seconds: 0, milliseconds: 0 };
  state.haveTime = true;
  setZone(state, 0);
  state.relative.seconds += Number(digits);
}

/** `+1 day`, `-2 weeks`, `3 hours`, `+1day`. */
function addNumberUnit(state: ParseState, sign: number, digits: string, word: string): void {
  const unit = UNITS.get(word);
  if (!unit || digits.length > MAX_NUMBER_DIGITS) throw new NotUnderstood();
  state.relative[unit.field] += sign * Number(digits) * unit.multiplier;
}

/** `next <unit>`, `last <day name>`, `this week`, … */
function relativeTextUnit(state: ParseState, amount: number, behavior: 0 | 1, word: string): void {
  const weekday = WEEKDAYS.get(word);
  if (weekday !== undefined) {
    // `next friday` is the first Friday after today, `last friday` the last one before today, `this friday` today or
    // the next one; all at 00:00.
    resetClock(state);
    state.relative.days += (amount > 0 ? amount - 1 : amount) * 7;
    state.weekday = { day: weekday, behavior };
    return;
  }
  if (word === 'week') {
    // strtotime's "<text> week": the same day-of-week offset, but moved to the Monday (or the weekday named elsewhere in
    // the text) of that Monday-to-Sunday week, keeping the time of day: on a Wednesday `next week` is next Monday.
    state.relative.days += amount * 7;
    state.weekday = { day: state.weekday?.day ?? 1, behavior: 2 };
    return;
  }
  const unit = UNITS.get(word);
  if (!unit) throw new NotUnderstood();
  state.relative[unit.field] += amount * unit.multiplier;
}

function keyword(state: ParseState, word: string): void {
  switch (word) {
    case 'now':
      return;
    case 'today':
    case 'midnight':
      resetClock(state);
      return;
    case 'noon':
      state.clock = { hours: 12, minutes: 0, seconds: 0, milliseconds: 0 };
      state.haveTime = true;
      return;
    case 'yesterday':
    case 'tomorrow':
      resetClock(state);
      // Assigned, not added: strtotime reads `+2 days yesterday` as yesterday.
      state.relative.days = word === 'yesterday' ? -1 : 1;
      return;
    case 'ago': {
      // Negates every relative part read so far: `2 months ago 5 days` is -2 months +5 days.
      if (state.weekday) throw new NotUnderstood();
      const relative = state.relative;
      for (const field of Object.keys(relative) as (keyof Relative)[]) relative[field] = -relative[field] || 0;
      return;
    }
  }
  const weekday = WEEKDAYS.get(word);
  if (weekday === undefined) throw new NotUnderstood();
  // A bare day name: today when it is that day, otherwise the next one; at 00:00.
  resetClock(state);
  state.weekday = { day: weekday, behavior: state.weekday?.behavior === 2 ? 2 : 1 };
}

function resetClock(state: ParseState): void {
  state.clock = { hours: 0, minutes: 0, seconds: 0, milliseconds: 0 };
  state.haveTime = false;
}

function evaluate(state: ParseState, now: Date): number {
  const offsetMs = (state.zone ?? 0) * 60_000;
  // Everything below is computed on the zone's wall clock, as UTC fields, and shifted back at the end.
  const wall = new Date(now.getTime() + offsetMs);
  const date = state.date ?? { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
  const clock =
    state.clock ??
    (state.date
      ? { hours: 0, minutes: 0, seconds: 0, milliseconds: 0 }
      : {
          hours: wall.getUTCHours(),
          minutes: wall.getUTCMinutes(),
          seconds: wall.getUTCSeconds(),
          milliseconds: wall.getUTCMilliseconds(),
        });

  let base = new Date(fromFields(date.year, date.month, date.day, clock.hours, clock.minutes, clock.seconds, clock.milliseconds));
  if (state.weekday) {
    const days = adjustToWeekday(base.getUTCDay(), state.weekday, state.relative.days);
    base = new Date(base.getTime() + days * 86_400_000);
  }
  const r = state.relative;
  const result = fromFields(
    base.getUTCFullYear() + r.years,
    base.getUTCMonth() + 1 + r.months,
    base.getUTCDate() + r.days,
    base.getUTCHours() + r.hours,
    base.getUTCMinutes() + r.minutes,
    base.getUTCSeconds() + r.seconds,
    base.getUTCMilliseconds(),
  );
  return result - offsetMs;
}

/**
 * Days to move from a date whose day of the week is `current` to the wanted weekday, as strtotime does before it adds
 * the relative parts (`relativeDays` is the relative day count, which decides the direction):
 * - behavior 2 (`… week`): the given weekday of the Monday-to-Sunday week of the date;
 * - otherwise forward to the weekday (today counts for behavior 1, `this friday` / `friday`; not for behavior 0,
 *   `next friday`), or, when the relative days are negative (`last friday` carries -7), to the weekday today or within
 *   the next six days, so that the -7 lands in the week before (and `wednesday -1 day` on a Wednesday is yesterday).
 */
function adjustToWeekday(current: number, move: WeekdayMove, relativeDays: number): number {
  if (move.behavior === 2) {
    const wanted = move.day === 0 ? 7 : move.day;
    const monday = current === 0 ? -6 : 1 - current;
    return monday + wanted - 1;
  }
  let difference = move.day - current;
  if ((relativeDays < 0 && difference < 0) || (relativeDays >= 0 && difference <= -move.behavior)) difference += 7;
  return difference;
}

/** Milliseconds of a UTC date built from fields that may overflow (month 14, day 31 of February), normalised as mktime. */
function fromFields(year: number, month: number, day: number, hours: number, minutes: number, seconds: number, ms: number): number {
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0–99 as 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(fromFields(year, month + 1, 0, 0, 0, 0, 0)).getUTCDate();
}
