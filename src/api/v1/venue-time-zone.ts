/** The time zone shown for a venue, and whether it was matched rather than inferred. */
export interface VenueTimeZone {
  time_zone: string | null;
  /** True when the zone is the venue city's own zone or the country's only zone. */
  time_zone_exact: boolean;
}

/** What the choice needs to know of a venue. */
export interface VenuePlace {
  country: string;
  city: string | null;
}

/** The city part of a zone name as a comparable text: `America/Argentina/Buenos_Aires` -> `buenos aires`. */
function zoneCity(zone: string): string {
  return zone
    .slice(zone.lastIndexOf('/') + 1)
    .replaceAll('_', ' ')
    .toLowerCase();
}

/** The zone named after the city, if the country has one. */
function findCityZone(city: string | null, countryZones: readonly string[]): string | undefined {
  const wanted = city?.trim().replace(/\s+/g, ' ').toLowerCase() ?? '';
  return wanted === '' ? undefined : countryZones.find((zone) => zoneCity(zone) === wanted);
}

/**
 * Picks the IANA zone of a venue from the zones of its country: the zone named after the
 * venue's city; else the country's only zone; else (marked inexact) the country's usual venue
 * zone, else the first zone listed. ISO 10383 gives no coordinates, so a city without a zone
 * of its own can only be placed by such a rule.
 */
export function resolveVenueTimeZone(
  city: string | null,
  countryZones: readonly string[],
  usualZone: string | null = null,
): VenueTimeZone {
  const named = findCityZone(city, countryZones);
  if (named !== undefined) return { time_zone: named, time_zone_exact: true };
  if (countryZones.length === 1) return { time_zone: countryZones[0]!, time_zone_exact: true };
  if (usualZone !== null && countryZones.includes(usualZone))
    return { time_zone: usualZone, time_zone_exact: false };
  return { time_zone: countryZones[0] ?? null, time_zone_exact: false };
}

/**
 * Finds, per country with several zones, the zone that most of its venues are matched to by
 * city (ties: the zone listed first). A venue in Boston then gets New York's zone rather than
 * the alphabetically first US zone (America/Adak, five hours off).
 */
export function findUsualVenueZones(
  venues: readonly VenuePlace[],
  zonesByCountry: ReadonlyMap<string, readonly string[]>,
): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const venue of venues) {
    const zones = zonesByCountry.get(venue.country) ?? [];
    if (zones.length < 2) continue;
    const zone = findCityZone(venue.city, zones);
    if (zone === undefined) continue;
    const perZone = counts.get(venue.country) ?? new Map<string, number>();
    perZone.set(zone, (perZone.get(zone) ?? 0) + 1);
    counts.set(venue.country, perZone);
  }
  const usual = new Map<string, string>();
  for (const [country, perZone] of counts) {
    const zones = zonesByCountry.get(country) ?? [];
    let best: string | null = null;
    for (const zone of zones) {
      if ((perZone.get(zone) ?? 0) > (best === null ? 0 : (perZone.get(best) ?? 0))) best = zone;
    }
    if (best !== null) usual.set(country, best);
  }
  return usual;
}
