import { describe, expect, it } from 'vitest';
import { formatGraphTimestamp, parseGraphTime, toUnixSeconds } from '../../lib/social-graph/graph-time.ts';

// Expected values below were checked against PHP 8.2's strtotime with the default zone UTC, except where a test says that
// Tributary differs on purpose.

/** A Wednesday, with milliseconds to show which values keep the time of `now` and which reset it. */
const WEDNESDAY = new Date('2024-05-15T10:20:30.250Z');

/** The ISO form of what `text` parses to at `now`, or undefined. */
function parse(text: string, now: Date = WEDNESDAY): string | undefined {
  return parseGraphTime(text, now)?.toISOString();
}

/** Shorthand for a table of `[input, expected ISO instant]` checked at `now`. */
function expectAll(cases: readonly (readonly [string, string | undefined])[], now: Date = WEDNESDAY): void {
  const actual = cases.map(([text]) => [text, parse(text, now)]);
  expect(actual).toEqual(cases.map(([text, expected]) => [text, expected]));
}

describe('parseGraphTime: unix timestamps', () => {
  it('reads digits as unix seconds, as the Graph API does', () => {
    expectAll([
      ['1700000000', '2023-11-14T22:13:20.000Z'],
      ['0', '1970-01-01T00:00:00.000Z'],
      ['0001700000000', '2023-11-14T22:13:20.000Z'],
      ['253402300799', '9999-12-31T23:59:59.000Z'],
    ]);
  });

  it('reads strtotime’s @-form, which may carry relative parts', () => {
    expectAll([
      ['@1700000000', '2023-11-14T22:13:20.000Z'],
      ['@0', '1970-01-01T00:00:00.000Z'],
      ['@1700000000 +1 day', '2023-11-15T22:13:20.000Z'],
      ['@1700000000 -1 hour', '2023-11-14T21:13:20.000Z'],
      ['@1700000000 +1 day -3 hours', '2023-11-15T19:13:20.000Z'],
      ['@1700000000 yesterday', '2023-11-13T22:13:20.000Z'],
      ['+1 day @1700000000', '2023-11-15T22:13:20.000Z'],
    ]);
  });

  it('adds offsets after @ to the epoch first, as strtotime does', () => {
    // 1970-01-01 + 1 month is 31 days later, + 1 year 365 days, whatever month the timestamp falls in.
    expect(parse('@1700000000 +1 month')).toBe('2023-12-15T22:13:20.000Z');
    expect(parse('@1700000000 +1 year')).toBe('2024-11-13T22:13:20.000Z');
    // "ago" negates the timestamp too, which lands before 1970.
    expect(parse('@1700000000 ago')).toBeUndefined();
  });

  it('ignores surrounding blanks', () => {
    expect(parse('  1700000000\t\n')).toBe('2023-11-14T22:13:20.000Z');
  });

  it('refuses timestamps beyond 9999, milliseconds among them', () => {
    expect(parse('253402300800')).toBeUndefined();
    expect(parse('1700000000000')).toBeUndefined();
    expect(parse('99999999999999999999999')).toBeUndefined();
  });

  it('refuses negative and fractional timestamps (before 1970, or not seconds)', () => {
    expect(parse('-1')).toBeUndefined();
    expect(parse('-1700000000')).toBeUndefined();
    expect(parse('@-1')).toBeUndefined();
    expect(parse('1700000000.5')).toBeUndefined();
    expect(parse('+1700000000')).toBeUndefined();
    expect(parse('1 700 000 000')).toBeUndefined();
  });

  it('takes digits as a timestamp even when they look like a date', () => {
    expect(parse('20240101')).toBe('1970-08-23T06:15:01.000Z');
    expect(parse('2024')).toBe('1970-01-01T00:33:44.000Z');
  });
});

describe('parseGraphTime: ISO 8601 and RFC 3339', () => {
  it('reads a date as midnight UTC', () => {
    expectAll([
      ['2024-01-01', '2024-01-01T00:00:00.000Z'],
      ['2024-1-5', '2024-01-05T00:00:00.000Z'],
      ['2024-02-29', '2024-02-29T00:00:00.000Z'],
      ['1970-01-01', '1970-01-01T00:00:00.000Z'],
    ]);
  });

  it('reads date and time, with T or a blank, in UTC when no zone is given', () => {
    expectAll([
      ['2024-01-01T12:00:00', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01 12:00:00', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01 12:00', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01T9:05', '2024-01-01T09:05:00.000Z'],
      ['2024-01-01   12:00:00', '2024-01-01T12:00:00.000Z'],
      ['9999-12-31 23:59:59', '9999-12-31T23:59:59.000Z'],
    ]);
  });

  it('reads the zones Graph and RFC 3339 write', () => {
    expectAll([
      ['2024-01-01T12:00:00Z', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01T12:00:00+0000', '2024-01-01T12:00:00.000Z'],
      ['2017-05-19T23:27:28+0000', '2017-05-19T23:27:28.000Z'],
      ['2024-01-01T12:00:00+00:00', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01T12:00:00+0200', '2024-01-01T10:00:00.000Z'],
      ['2024-01-01T12:00:00+05:30', '2024-01-01T06:30:00.000Z'],
      ['2024-01-01T12:00:00-0500', '2024-01-01T17:00:00.000Z'],
      ['2024-01-01T12:00:00+02', '2024-01-01T10:00:00.000Z'],
      ['2024-01-01T12:00:00 +0200', '2024-01-01T10:00:00.000Z'],
      ['2024-01-01T12:00:00 +02', '2024-01-01T10:00:00.000Z'],
      ['2024-01-01 12:00 UTC', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01 12:00 gmt', '2024-01-01T12:00:00.000Z'],
      ['2024-01-01 00:00:00 -0500', '2024-01-01T05:00:00.000Z'],
      ['2024-01-01 -0500', '2024-01-01T05:00:00.000Z'],
      ['2024-01-01 utc', '2024-01-01T00:00:00.000Z'],
    ]);
  });

  it('is case-insensitive', () => {
    expect(parse('2024-01-01t12:00:00z')).toBe('2024-01-01T12:00:00.000Z');
    expect(parse('2024-01-01 12:00 Utc')).toBe('2024-01-01T12:00:00.000Z');
  });

  it('keeps milliseconds of a fraction (strtotime, returning seconds, drops them)', () => {
    expect(parse('2024-01-01T12:00:00.123Z')).toBe('2024-01-01T12:00:00.123Z');
    expect(parse('2024-01-01T12:00:00.5Z')).toBe('2024-01-01T12:00:00.500Z');
    expect(parse('2024-01-01T12:00:00.123456789+0000')).toBe('2024-01-01T12:00:00.123Z');
  });

  it('takes 24:00 as the end of the day and a leap second as the next minute, as strtotime does', () => {
    expect(parse('2024-01-01 24:00')).toBe('2024-01-02T00:00:00.000Z');
    expect(parse('2024-01-01T24:00:00Z')).toBe('2024-01-02T00:00:00.000Z');
    expect(parse('2024-01-01T12:00:60Z')).toBe('2024-01-01T12:01:00.000Z');
  });

  it('refuses impossible dates and times (strtotime would roll 2024-02-30 over to March)', () => {
    for (const text of [
      '2024-02-30',
      '2023-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-01-32',
      '2024-01-01T24:30',
      '2024-01-01T24:00:01',
      '2024-01-01T25:00',
      '2024-01-01T12:60',
      '2024-01-01T12:00:61',
      '2024-01-01T12:00:00+2400',
      '2024-01-01T12:00:00+0060',
      '24:30',
    ]) {
      expect(parse(text), text).toBeUndefined();
    }
  });

  it('refuses malformed forms', () => {
    for (const text of [
      '2024-01-01T',
      '2024-01-01T12',
      '2024-01-01T12:0',
      '2024-01-01T12:00:00.',
      '2024-01-01T12:00:00+1',
      '2024-01-01T12:00:00ZZ',
      '2024-01-01T12:00:00Z +0100',
      '2024-01-01T12:00:00+0000x',
      '12024-01-01',
      '24-01-01',
      '2024-01-01-01',
      '2024/01/01',
      '2024-01-01now',
      '2024-01-01 2024-01-02',
      '12:00 13:00',
      '12:00now',
      '12:00pm',
    ]) {
      expect(parse(text), text).toBeUndefined();
    }
  });

  it('refuses years outside 1970–9999, also when reached by arithmetic', () => {
    expect(parse('1969-12-31')).toBeUndefined();
    expect(parse('1969-12-31T23:00:00-0100')).toBe('1970-01-01T00:00:00.000Z');
    expect(parse('1970-01-01T00:00:00+0100')).toBeUndefined();
    expect(parse('0000-01-01')).toBeUndefined();
    expect(parse('0050-01-01 +1920 years')).toBe('1970-01-01T00:00:00.000Z');
    expect(parse('1970-01-01 -1 sec')).toBeUndefined();
    expect(parse('9999-12-31 +1 day')).toBeUndefined();
    expect(parse('9999-12-31T23:59:59.999Z')).toBe('9999-12-31T23:59:59.999Z');
    expect(parse('+8000 years')).toBeUndefined();
    expect(parse('-60 years')).toBeUndefined();
    expect(parse('+999999999999 days')).toBeUndefined();
    expect(parse('+9999999999999 days')).toBeUndefined();
  });
});

describe('parseGraphTime: keywords', () => {
  it('reads now, today, midnight, noon, yesterday and tomorrow', () => {
    expectAll([
      ['now', '2024-05-15T10:20:30.250Z'],
      ['today', '2024-05-15T00:00:00.000Z'],
      ['midnight', '2024-05-15T00:00:00.000Z'],
      ['noon', '2024-05-15T12:00:00.000Z'],
      ['yesterday', '2024-05-14T00:00:00.000Z'],
      ['tomorrow', '2024-05-16T00:00:00.000Z'],
    ]);
  });

  it('is case-insensitive and ignores surrounding blanks', () => {
    expectAll([
      ['NOW', '2024-05-15T10:20:30.250Z'],
      ['  now  ', '2024-05-15T10:20:30.250Z'],
      ['Yesterday Noon', '2024-05-14T12:00:00.000Z'],
      ['LAST MONDAY', '2024-05-13T00:00:00.000Z'],
    ]);
  });

  it('combines with a time of day in strtotime’s order: the keyword resets the time it follows', () => {
    expectAll([
      ['yesterday noon', '2024-05-14T12:00:00.000Z'],
      ['noon yesterday', '2024-05-14T00:00:00.000Z'],
      ['tomorrow noon', '2024-05-16T12:00:00.000Z'],
      ['tomorrow 11:00', '2024-05-16T11:00:00.000Z'],
      ['11:00 tomorrow', '2024-05-16T00:00:00.000Z'],
      ['yesterday 12:00', '2024-05-14T12:00:00.000Z'],
      ['12:00 yesterday', '2024-05-14T00:00:00.000Z'],
      ['14:00 noon', '2024-05-15T12:00:00.000Z'],
      ['today 08:15:00', '2024-05-15T08:15:00.000Z'],
      ['12:00', '2024-05-15T12:00:00.000Z'],
      ['2024-01-01 noon', '2024-01-01T12:00:00.000Z'],
      ['noon 2024-01-01', '2024-01-01T12:00:00.000Z'],
      ['12:00 2024-01-01', '2024-01-01T12:00:00.000Z'],
    ]);
  });

  it('refuses two times of day, as strtotime does', () => {
    expect(parse('noon 14:00')).toBeUndefined();
    expect(parse('12:00 noon 13:00')).toBeUndefined();
  });

  it('lets yesterday and tomorrow set the day offset rather than add to it, as strtotime does', () => {
    expectAll([
      ['+2 days yesterday', '2024-05-14T00:00:00.000Z'],
      ['yesterday +2 days', '2024-05-16T00:00:00.000Z'],
      ['tomorrow -1 day', '2024-05-15T00:00:00.000Z'],
      ['midnight +1 hour', '2024-05-15T01:00:00.000Z'],
      ['today -1 sec', '2024-05-14T23:59:59.000Z'],
    ]);
  });

  it('takes the day from the date it is given', () => {
    expect(parse('2024-01-01 tomorrow')).toBe('2024-01-02T00:00:00.000Z');
    expect(parse('2024-03-01 yesterday')).toBe('2024-02-29T00:00:00.000Z');
  });
});

describe('parseGraphTime: relative offsets', () => {
  it('reads every unit, singular, plural and abbreviated', () => {
    expectAll([
      ['+1 sec', '2024-05-15T10:20:31.250Z'],
      ['+2 secs', '2024-05-15T10:20:32.250Z'],
      ['+1 second', '2024-05-15T10:20:31.250Z'],
      ['+30 seconds', '2024-05-15T10:21:00.250Z'],
      ['+1 min', '2024-05-15T10:21:30.250Z'],
      ['+90 mins', '2024-05-15T11:50:30.250Z'],
      ['+1 minute', '2024-05-15T10:21:30.250Z'],
      ['+5 minutes', '2024-05-15T10:25:30.250Z'],
      ['+1 hour', '2024-05-15T11:20:30.250Z'],
      ['+14 hours', '2024-05-16T00:20:30.250Z'],
      ['+1 day', '2024-05-16T10:20:30.250Z'],
      ['+17 days', '2024-06-01T10:20:30.250Z'],
      ['+1 week', '2024-05-22T10:20:30.250Z'],
      ['-2 weeks', '2024-05-01T10:20:30.250Z'],
      ['+1 fortnight', '2024-05-29T10:20:30.250Z'],
      ['+2 fortnights', '2024-06-12T10:20:30.250Z'],
      ['+1 forthnight', '2024-05-29T10:20:30.250Z'],
      ['-1 month', '2024-04-15T10:20:30.250Z'],
      ['+8 months', '2025-01-15T10:20:30.250Z'],
      ['+1 year', '2025-05-15T10:20:30.250Z'],
      ['-10 years', '2014-05-15T10:20:30.250Z'],
    ]);
  });

  it('takes an unsigned number as positive and allows the unit to touch it', () => {
    expectAll([
      ['1 day', '2024-05-16T10:20:30.250Z'],
      ['+1day', '2024-05-16T10:20:30.250Z'],
      ['-3hours', '2024-05-15T07:20:30.250Z'],
      ['+1day+2hours', '2024-05-16T12:20:30.250Z'],
      ['+0 days', '2024-05-15T10:20:30.250Z'],
    ]);
  });

  it('adds several parts, each with its own sign', () => {
    expectAll([
      ['+1 year 2 days', '2025-05-17T10:20:30.250Z'],
      ['-1 year 2 days', '2023-05-17T10:20:30.250Z'],
      ['+1 week 2 days 4 hours 2 seconds', '2024-05-24T14:20:32.250Z'],
      ['+1 day -1 day', '2024-05-15T10:20:30.250Z'],
      ['+1 month +1 month', '2024-07-15T10:20:30.250Z'],
    ]);
  });

  it('negates everything read before "ago"', () => {
    expectAll([
      ['3 hours ago', '2024-05-15T07:20:30.250Z'],
      ['+1 days ago', '2024-05-14T10:20:30.250Z'],
      ['-3 days ago', '2024-05-18T10:20:30.250Z'],
      ['2 days 3 hours ago', '2024-05-13T07:20:30.250Z'],
      ['2 months ago 5 days', '2024-03-20T10:20:30.250Z'],
      ['1 day ago 2 days', '2024-05-16T10:20:30.250Z'],
      ['+1 day ago ago', '2024-05-16T10:20:30.250Z'],
      ['yesterday ago', '2024-05-16T00:00:00.000Z'],
      ['ago', '2024-05-15T10:20:30.250Z'],
    ]);
  });

  it('reads next, last, previous and this with a unit as +1, -1 and 0 of it', () => {
    expectAll([
      ['next day', '2024-05-16T10:20:30.250Z'],
      ['last day', '2024-05-14T10:20:30.250Z'],
      ['previous day', '2024-05-14T10:20:30.250Z'],
      ['this day', '2024-05-15T10:20:30.250Z'],
      ['next month', '2024-06-15T10:20:30.250Z'],
      ['last year', '2023-05-15T10:20:30.250Z'],
      ['next year', '2025-05-15T10:20:30.250Z'],
      ['this month', '2024-05-15T10:20:30.250Z'],
      ['last sec', '2024-05-15T10:20:29.250Z'],
      ['next hour', '2024-05-15T11:20:30.250Z'],
      ['next fortnight', '2024-05-29T10:20:30.250Z'],
      ['next weeks', '2024-05-22T10:20:30.250Z'],
      ['next  day', '2024-05-16T10:20:30.250Z'],
    ]);
  });

  it('applies relative parts to a given date, whatever their order', () => {
    expectAll([
      ['2024-01-01 +1 day', '2024-01-02T00:00:00.000Z'],
      ['+1 day 2024-01-01', '2024-01-02T00:00:00.000Z'],
      ['2024-01-01 12:00:00 +1 day', '2024-01-02T12:00:00.000Z'],
      ['2024-01-01 12:00:00 +10 days', '2024-01-11T12:00:00.000Z'],
      ['2024-01-01T12:00:00Z -90 minutes', '2024-01-01T10:30:00.000Z'],
      ['12:00 +10 days', '2024-05-25T12:00:00.000Z'],
      ['2024-01-01 3 days ago', '2023-12-29T00:00:00.000Z'],
    ]);
  });

  it('reads a signed number before a unit as an offset, not a zone', () => {
    expect(parse('2024-01-01T12:00:00 +10 days')).toBe('2024-01-11T12:00:00.000Z');
    expect(parse('2024-01-01T12:00:00 +0200 days')).toBe('2024-07-19T12:00:00.000Z');
    expect(parse('+0200 days')).toBe('2024-12-01T10:20:30.250Z');
  });
});

describe('parseGraphTime: month and year arithmetic overflows as in PHP', () => {
  it('lets a day beyond the end of the target month spill into the next', () => {
    expectAll([
      ['2024-01-31 +1 month', '2024-03-02T00:00:00.000Z'],
      ['2023-01-31 +1 month', '2023-03-03T00:00:00.000Z'],
      ['2024-01-30 +1 month', '2024-03-01T00:00:00.000Z'],
      ['2024-01-29 +1 month', '2024-02-29T00:00:00.000Z'],
      ['2024-03-31 -1 month', '2024-03-02T00:00:00.000Z'],
      ['2024-03-31 +1 month', '2024-05-01T00:00:00.000Z'],
      ['2024-05-31 -1 month', '2024-05-01T00:00:00.000Z'],
      ['2024-12-31 +2 months', '2025-03-03T00:00:00.000Z'],
      ['2024-10-31 +4 months', '2025-03-03T00:00:00.000Z'],
      ['2024-02-29 +1 year', '2025-03-01T00:00:00.000Z'],
      ['2024-02-29 -1 year', '2023-03-01T00:00:00.000Z'],
      ['2024-02-29 +4 years', '2028-02-29T00:00:00.000Z'],
      ['2024-01-31T12:00:00Z +1 month', '2024-03-02T12:00:00.000Z'],
    ]);
  });

  it('carries months into years both ways', () => {
    expectAll([
      ['2024-11-15 +3 months', '2025-02-15T00:00:00.000Z'],
      ['2024-02-15 -3 months', '2023-11-15T00:00:00.000Z'],
      ['2024-02-15 -27 months', '2021-11-15T00:00:00.000Z'],
      ['2024-01-15 +1 year -1 month', '2024-12-15T00:00:00.000Z'],
    ]);
  });

  it('applies month arithmetic to the day of now', () => {
    const now = new Date('2023-01-31T05:06:07Z');
    expect(parse('+1 month', now)).toBe('2023-03-03T05:06:07.000Z');
    expect(parse('next month', now)).toBe('2023-03-03T05:06:07.000Z');
    expect(parse('-1 year 2 days', new Date('2024-02-29T12:00:00Z'))).toBe('2023-03-03T12:00:00.000Z');
  });

  it('settles 24:00 into the next day before adding months', () => {
    expect(parse('2024-01-31 24:00 +1 month')).toBe('2024-03-01T00:00:00.000Z');
  });

  it('does the arithmetic on the wall clock of a given zone', () => {
    // 2024-01-31 23:00 at -05:00, plus a month, is "2024-02-31 23:00" = 2024-03-02 23:00 at -05:00.
    expect(parse('2024-01-31T23:00:00-0500 +1 month')).toBe('2024-03-03T04:00:00.000Z');
    expect(parse('2024-01-01T12:00:00+0200 +1 month')).toBe('2024-02-01T10:00:00.000Z');
    expect(parse('2024-01-31T23:00:00-0500 tomorrow')).toBe('2024-02-01T05:00:00.000Z');
    expect(parse('2024-01-31T23:00:00-0500 noon')).toBe('2024-01-31T17:00:00.000Z');
    expect(parse('2024-01-31T23:00:00-0500 next week')).toBe('2024-02-06T04:00:00.000Z');
    // strtotime reads "-0500 monday" as minus 500 Mondays; a zone before a day name is a zone here.
    expect(parse('2024-01-31T23:00:00-0500 monday')).toBe('2024-02-05T05:00:00.000Z');
  });
});

describe('parseGraphTime: weekdays', () => {
  const NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
  /** 2024-05-12 is a Sunday; 2024-05-12 + n is weekday n. */
  const day = (offset: number) => new Date(Date.UTC(2024, 4, 12 + offset)).toISOString();

  it('moves "next <day>" to the first such day after today, at 00:00', () => {
    for (let today = 0; today < 7; today++) {
      const now = new Date(Date.UTC(2024, 4, 12 + today, 15, 30));
      for (let target = 0; target < 7; target++) {
        const ahead = (target - today + 7) % 7 || 7;
        expect(parse(`next ${NAMES[target]}`, now), `${NAMES[today]}: next ${NAMES[target]}`).toBe(day(today + ahead));
      }
    }
  });

  it('moves "last <day>" and "previous <day>" to the last such day before today, at 00:00', () => {
    for (let today = 0; today < 7; today++) {
      const now = new Date(Date.UTC(2024, 4, 12 + today, 15, 30));
      for (let target = 0; target < 7; target++) {
        const back = (today - target + 7) % 7 || 7;
        expect(parse(`last ${NAMES[target]}`, now), `${NAMES[today]}: last ${NAMES[target]}`).toBe(day(today - back));
        expect(parse(`previous ${NAMES[target]}`, now)).toBe(day(today - back));
      }
    }
  });

  it('moves "<day>" and "this <day>" to today when it is that day, else to the next one', () => {
    for (let today = 0; today < 7; today++) {
      const now = new Date(Date.UTC(2024, 4, 12 + today, 15, 30));
      for (let target = 0; target < 7; target++) {
        const ahead = (target - today + 7) % 7;
        expect(parse(NAMES[target]!, now), `${NAMES[today]}: ${NAMES[target]}`).toBe(day(today + ahead));
        expect(parse(`this ${NAMES[target]}`, now)).toBe(day(today + ahead));
      }
    }
  });

  it('accepts three-letter day names', () => {
    expectAll([
      ['next mon', '2024-05-20T00:00:00.000Z'],
      ['last sat', '2024-05-11T00:00:00.000Z'],
      ['thu', '2024-05-16T00:00:00.000Z'],
      ['this wed', '2024-05-15T00:00:00.000Z'],
    ]);
  });

  it('counts from a given date and takes a time of day after the day name', () => {
    expectAll([
      ['2024-01-01 next friday', '2024-01-05T00:00:00.000Z'],
      ['2024-01-05 next friday', '2024-01-12T00:00:00.000Z'],
      ['2024-01-05 last friday', '2023-12-29T00:00:00.000Z'],
      ['2024-01-05 friday', '2024-01-05T00:00:00.000Z'],
      ['next friday 09:30', '2024-05-17T09:30:00.000Z'],
      ['next friday noon', '2024-05-17T12:00:00.000Z'],
      ['09:30 next friday', '2024-05-17T00:00:00.000Z'],
    ]);
  });

  it('moves to the day first and then adds the offsets, whose sign decides the direction', () => {
    expectAll([
      ['monday +1 day', '2024-05-21T00:00:00.000Z'],
      ['monday -1 day', '2024-05-19T00:00:00.000Z'],
      ['next friday +1 week', '2024-05-24T00:00:00.000Z'],
      ['last monday -1 day', '2024-05-12T00:00:00.000Z'],
      ['wednesday -1 day', '2024-05-14T00:00:00.000Z'],
    ]);
    expect(parse('monday -1 day', new Date('2024-05-13T10:00:00Z'))).toBe('2024-05-12T00:00:00.000Z');
  });

  it('reads "<text> week" as a day of that Monday-to-Sunday week, keeping the time (strtotime’s own rule)', () => {
    expectAll([
      ['this week', '2024-05-13T10:20:30.250Z'],
      ['next week', '2024-05-20T10:20:30.250Z'],
      ['last week', '2024-05-06T10:20:30.250Z'],
      ['previous week', '2024-05-06T10:20:30.250Z'],
      ['friday next week', '2024-05-24T00:00:00.000Z'],
      ['next week friday', '2024-05-24T00:00:00.000Z'],
      ['monday next week', '2024-05-20T00:00:00.000Z'],
      ['saturday this week', '2024-05-18T00:00:00.000Z'],
      ['sunday this week', '2024-05-19T00:00:00.000Z'],
      ['monday this week', '2024-05-13T00:00:00.000Z'],
      ['sunday last week', '2024-05-12T00:00:00.000Z'],
    ]);
  });

  it('treats Sunday as the end of its week', () => {
    const sunday = new Date('2024-05-19T23:59:59Z');
    expectAll(
      [
        ['this week', '2024-05-13T23:59:59.000Z'],
        ['next week', '2024-05-20T23:59:59.000Z'],
        ['last week', '2024-05-06T23:59:59.000Z'],
        ['sunday this week', '2024-05-19T00:00:00.000Z'],
        ['monday this week', '2024-05-13T00:00:00.000Z'],
      ],
      sunday,
    );
    expect(parse('2024-01-07 this week')).toBe('2024-01-01T00:00:00.000Z');
    expect(parse('2024-01-07 next week')).toBe('2024-01-08T00:00:00.000Z');
  });

  it('refuses "ago" after a weekday, whose strtotime result is not meaningful', () => {
    expect(parse('monday ago')).toBeUndefined();
    expect(parse('next week ago')).toBeUndefined();
    expect(parse('last friday 2 days ago')).toBeUndefined();
  });
});

describe('parseGraphTime: zones without a date or time', () => {
  it('reads now, today and times on the wall clock of the named zone', () => {
    const now = new Date('2024-05-19T23:59:59Z');
    // strtotime would fill in the UTC date and clock and then read them in the zone, making "now +0200" two hours ago.
    expect(parse('now +0200', now)).toBe('2024-05-19T23:59:59.000Z');
    expect(parse('today +0200', now)).toBe('2024-05-19T22:00:00.000Z');
    expect(parse('12:00 +10', now)).toBe('2024-05-20T02:00:00.000Z');
    expect(parse('now utc', now)).toBe('2024-05-19T23:59:59.000Z');
    expect(parse('today UTC', now)).toBe('2024-05-19T00:00:00.000Z');
    expect(parse('+1 day -0500', now)).toBe('2024-05-20T23:59:59.000Z');
  });
});

describe('parseGraphTime: what it does not understand', () => {
  it('returns undefined for empty and blank text', () => {
    expect(parse('')).toBeUndefined();
    expect(parse('   ')).toBeUndefined();
  });

  it('returns undefined for unknown words and incomplete relative parts', () => {
    for (const text of [
      'soon',
      'day',
      'days ago',
      '3 foo',
      '+1',
      '+10',
      '-5',
      'z',
      'next',
      'next foo',
      'nextfriday',
      'next 2',
      'today2',
      'nowtoday',
      '@',
      '@abc',
      '+ 1 day',
      '--1 day',
      '+1 weekday',
      '1 monday',
      'first monday',
      'tues',
      'jan 1',
      '1 jan 2024',
      '+1 day, +2 hours',
      '2024-01-01T12:00:00Z UTC',
      '@1700000000 12:00',
      '@1700000000 2024-01-01',
      '2024-01-01 @1700000000',
      '@1700000000 @1700000000',
      '@1700000000 +0200',
      'undefined',
      'null',
      'NaN',
      '1e9',
      '0x10',
    ]) {
      expect(parse(text), text).toBeUndefined();
    }
  });

  it('returns undefined when now is not a date', () => {
    expect(parseGraphTime('now', new Date(Number.NaN))).toBeUndefined();
  });

  it('does not depend on the process time zone or clock', () => {
    expect(parse('today', new Date('2024-05-15T23:30:00Z'))).toBe('2024-05-15T00:00:00.000Z');
    expect(parse('today', new Date('2024-05-15T00:30:00Z'))).toBe('2024-05-15T00:00:00.000Z');
  });
});

describe('toUnixSeconds', () => {
  it('gives whole seconds, rounding down', () => {
    expect(toUnixSeconds(new Date('2023-11-14T22:13:20Z'))).toBe(1_700_000_000);
    expect(toUnixSeconds(new Date('2023-11-14T22:13:20.999Z'))).toBe(1_700_000_000);
    expect(toUnixSeconds(new Date(0))).toBe(0);
    expect(toUnixSeconds(new Date(-1))).toBe(-1);
  });

  it('round-trips with a parsed timestamp', () => {
    expect(toUnixSeconds(parseGraphTime('1700000000', WEDNESDAY)!)).toBe(1_700_000_000);
  });

  it('refuses an invalid date', () => {
    expect(() => toUnixSeconds(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('formatGraphTimestamp', () => {
  it('writes the Graph format: UTC, whole seconds, +0000', () => {
    expect(formatGraphTimestamp(new Date('2017-05-19T23:27:28Z'))).toBe('2017-05-19T23:27:28+0000');
    expect(formatGraphTimestamp(new Date('2017-05-19T23:27:28.999Z'))).toBe('2017-05-19T23:27:28+0000');
    expect(formatGraphTimestamp(new Date('2024-01-01T12:00:00+0200'))).toBe('2024-01-01T10:00:00+0000');
    expect(formatGraphTimestamp(new Date(0))).toBe('1970-01-01T00:00:00+0000');
    expect(formatGraphTimestamp(new Date('9999-12-31T23:59:59Z'))).toBe('9999-12-31T23:59:59+0000');
  });

  it('is read back by parseGraphTime', () => {
    const date = new Date('2017-05-19T23:27:28Z');
    expect(parseGraphTime(formatGraphTimestamp(date), WEDNESDAY)).toEqual(date);
  });

  it('refuses dates it cannot write in four-digit years, and invalid dates', () => {
    expect(() => formatGraphTimestamp(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => formatGraphTimestamp(new Date('+010000-01-01T00:00:00Z'))).toThrow(RangeError);
    expect(() => formatGraphTimestamp(new Date('-000001-01-01T00:00:00Z'))).toThrow(RangeError);
  });
});
