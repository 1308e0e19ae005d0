/**
 * The reduced `os` library Karmada opens (from Argo CD): only `os.time` and `os.date`, with their
 * quirks — `os.time{}` defaults day/month/year to -1 and hour to 12, `%a` prints a literal `mon`, `%x`
 * prints `HH/MM/SS`, and a second argument to `os.date` is always shown in local time.
 */

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

interface Parts {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  min: number;
  sec: number;
  wday: number; // 0 = Sunday
  offsetMin: number; // east of UTC
  zone: string;
}

function partsOf(ms: number, utc: boolean): Parts {
  const d = new Date(ms);
  if (utc) {
    return {
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      min: d.getUTCMinutes(),
      sec: d.getUTCSeconds(),
      wday: d.getUTCDay(),
      offsetMin: 0,
      zone: 'UTC',
    };
  }
  const offsetMin = -d.getTimezoneOffset();
  let zone = 'UTC';
  try {
    const name = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName');
    if (name) zone = name.value === 'GMT' && offsetMin === 0 ? 'UTC' : name.value;
  } catch {
    zone = 'UTC';
  }
  return {
    year: d.getFullYear(),
    month: d.getMonth() + 1,
    day: d.getDate(),
    hour: d.getHours(),
    min: d.getMinutes(),
    sec: d.getSeconds(),
    wday: d.getDay(),
    offsetMin,
    zone,
  };
}

const p2 = (n: number) => String(n).padStart(2, '0');

function zoneOffset(min: number): string {
  const sign = min < 0 ? '-' : '+';
  const a = Math.abs(min);
  return `${sign}${p2(Math.floor(a / 60))}${p2(a % 60)}`;
}

function flag(c: string, p: Parts): string | null {
  const h12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  switch (c) {
    case 'a':
      return 'mon';
    case 'A':
      return DAYS[p.wday]!;
    case 'b':
      return MONTHS[p.month - 1]!.slice(0, 3);
    case 'B':
      return MONTHS[p.month - 1]!;
    case 'c':
      return `${p2(p.day)} ${MONTHS[p.month - 1]!.slice(0, 3)} ${p2(p.year % 100)} ${p2(p.hour)}:${p2(p.min)} ${p.zone}`;
    case 'd':
      return p2(p.day);
    case 'F':
      return `${p.year}-${p2(p.month)}-${p2(p.day)}`;
    case 'H':
      return p2(p.hour);
    case 'I':
      return p2(h12);
    case 'm':
      return p2(p.month);
    case 'M':
      return p2(p.min);
    case 'p':
      return p.hour < 12 ? 'AM' : 'PM';
    case 'P':
      return p.hour < 12 ? 'am' : 'pm';
    case 'S':
      return p2(p.sec);
    case 'x':
      return `${p2(p.hour)}/${p2(p.min)}/${p2(p.sec)}`;
    case 'X':
      return `${p2(p.hour)}:${p2(p.min)}:${p2(p.sec)}`;
    case 'y':
      return p2(p.year % 100);
    case 'Y':
      return String(p.year);
    case 'z':
      return zoneOffset(p.offsetMin);
    case 'Z':
      return p.zone;
    case 'w':
      return String(p.wday);
    default:
      return null;
  }
}

/** os.date as Karmada's reduced library renders it; returns a table description for `*t`. */
export function osDate(format: string | undefined, t: number | undefined, nowMs: number): string | Record<string, number | boolean> {
  let fmt = format ?? '%c';
  let utc = false;
  if (fmt.startsWith('!')) {
    utc = true;
    fmt = fmt.slice(1);
  }
  let ms = nowMs;
  if (t !== undefined) {
    ms = Math.trunc(t) * 1000;
    utc = false;
  }
  const p = partsOf(ms, utc);
  if (fmt.startsWith('*t')) {
    return { year: p.year, month: p.month, day: p.day, hour: p.hour, min: p.min, sec: p.sec, wday: p.wday + 1, yday: 0, isdst: false };
  }
  let out = '';
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i]!;
    if (ch !== '%' || i + 1 >= fmt.length) {
      out += ch;
      continue;
    }
    const c = fmt[++i]!;
    if (c === '%') {
      out += '%';
      continue;
    }
    const v = flag(c, p);
    out += v === null ? `%${c}` : v;
  }
  return out;
}

export interface TimeFields {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  min?: number;
  sec?: number;
}

/** os.time(t): local time with Karmada's defaults (sec/min 0, hour 12, day/month/year -1). */
export function osTime(fields: TimeFields | undefined, nowMs: number): number {
  if (!fields) return Math.floor(nowMs / 1000);
  const year = fields.year ?? -1;
  const month = fields.month ?? -1;
  const day = fields.day ?? -1;
  const d = new Date(2000, 0, 1, 0, 0, 0, 0);
  d.setFullYear(year, month - 1, day);
  d.setHours(fields.hour ?? 12, fields.min ?? 0, fields.sec ?? 0, 0);
  return Math.floor(d.getTime() / 1000);
}
