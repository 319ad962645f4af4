/** Times in the person's locale and time zone; money in US dollars from microdollars. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const integer = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatClock = (iso: string) => clock.format(new Date(iso));
/** A UTC day (`YYYY-MM-DD`) as "Nov 27". */
export const formatDay = (date: string) => day.format(new Date(`${date}T00:00:00Z`));
export const formatCount = (n: number) => integer.format(n);
/** A share in percent; one too small to show as 0.1 is "under 0.1%", not 0. */
export const formatPercent = (n: number) => (n > 0 && n < 0.05 ? 'under 0.1%' : `${percent.format(n)}%`);

/** USD from microdollars: cents for a dollar or more, down to the microdollar below. */
export function usd(micro: number): string {
  const dollars = micro / 1_000_000;
  const small = dollars !== 0 && Math.abs(dollars) < 1;
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: small ? 6 : 2 }).format(
    dollars,
  );
}

export const json = (value: unknown) => JSON.stringify(value, null, 2);

export const ENDED_RUN = new Set(['completed', 'failed', 'cancelled']);
export const ENDED_REQUEST = new Set(['completed', 'failed', 'stopped']);
