/**
 * @module gateway/http-date
 * Strict HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate, rfc850-date and asctime-date only.
 */

const MONTHS: Record<string, number> = {
  Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11,
};
const IMF = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
const RFC850 = /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d\d)-([A-Z][a-z]{2})-(\d\d) (\d\d):(\d\d):(\d\d) GMT$/;
const ASCTIME = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/**
 * Milliseconds since the epoch, or undefined for anything that is not an HTTP-date.
 * `Date.parse` is deliberately not used: it accepts "UTC", other zones, dashes and
 * one-digit hours, all of which RFC 9111 §5.3 says must be read as "already expired".
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let m = IMF.exec(value);
  if (m) return build(Number(m[4]), m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!);
  m = RFC850.exec(value);
  if (m) {
    // RFC 9110 §5.6.7: a two-digit year more than 50 years ahead is the most recent past one.
    const nowYear = new Date().getUTCFullYear();
    let year = Math.floor(nowYear / 100) * 100 + Number(m[4]);
    if (year > nowYear + 50) year -= 100;
    return build(year, m[3]!, Number(m[2]), m[5]!, m[6]!, m[7]!);
  }
  m = ASCTIME.exec(value);
  if (m) return build(Number(m[7]), m[2]!, Number(m[3]!.trim()), m[4]!, m[5]!, m[6]!);
  return undefined;
}

function build(year: number, mon: string, day: number, hh: string, mm: string, ss: string): number | undefined {
  const month = MONTHS[mon];
  if (month === undefined) return undefined;
  const h = Number(hh), mi = Number(mm), s = Number(ss);
  if (day < 1 || day > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  return Date.UTC(year, month, day, h, mi, s);
}
