/**
 * @module http/http-date
 * Strict HTTP-date parsing (RFC 9110 §5.6.7), shared by conditional requests, the gateway and HMAC.
 * No jshttp package parses HTTP-dates strictly, hence this small module.
 */

const MONTHS: Record<string, number> = {
  Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11,
};
const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_NAMES_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const IMF = /^([A-Z][a-z]{2}), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
const RFC850 = /^([A-Z][a-z]{5,8}), (\d\d)-([A-Z][a-z]{2})-(\d\d) (\d\d):(\d\d):(\d\d) GMT$/;
const ASCTIME = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ( \d|\d\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/**
 * The preferred format only (IMF-fixdate), in milliseconds since the epoch, else undefined.
 * Senders must generate this format (§5.6.7); HMAC signs the Date as sent, so it takes no other.
 */
export function parseImfFixdate(value: string): number | undefined {
  const m = IMF.exec(value);
  return m ? build(m[1]!, DAY_NAMES, Number(m[4]), m[3]!, m[2]!, m[5]!, m[6]!, m[7]!) : undefined;
}

/**
 * Milliseconds since the epoch of an HTTP-date in any of the three formats a recipient must
 * accept (IMF-fixdate, and the obsolete rfc850-date and asctime-date), else undefined.
 * `Date.parse` is deliberately not used: it reads `1` and `3000` as years, accepts other zones
 * and rolls `31 Feb` over into March. A date that does not exist, or whose weekday is not the
 * date's, is not an HTTP-date. `now` decides the century of an rfc850 two-digit year.
 * @example
 *   parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'); // 784111777000
 *   parseHttpDate('Sat, 31 Feb 2024 00:00:00 GMT'); // undefined
 */
export function parseHttpDate(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const imf = parseImfFixdate(value);
  if (imf !== undefined) return imf;
  let m = RFC850.exec(value);
  if (m) {
    // §5.6.7: a two-digit year that appears more than 50 years in the future is the most recent
    // past year with those digits.
    const nowYear = new Date(now).getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    return build(m[1]!, DAY_NAMES_LONG, year, m[3]!, m[2]!, m[5]!, m[6]!, m[7]!);
  }
  m = ASCTIME.exec(value);
  if (m) return build(m[1]!, DAY_NAMES, Number(m[7]), m[2]!, m[3]!.trim(), m[4]!, m[5]!, m[6]!);
  return undefined;
}

function build(
  dayName: string, names: readonly string[], year: number, mon: string, dd: string, hh: string, mm: string, ss: string,
): number | undefined {
  const month = MONTHS[mon];
  const day = Number(dd), h = Number(hh), mi = Number(mm), s = Number(ss);
  // §5.6.7: hours 00-23, minutes 00-59, seconds up to 60 (a leap second).
  if (month === undefined || h > 23 || mi > 59 || s > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  if (date.getUTCMonth() !== month || date.getUTCDate() !== day || names[date.getUTCDay()] !== dayName) return undefined;
  return date.getTime() + ((h * 60 + mi) * 60 + s) * 1000;
}
