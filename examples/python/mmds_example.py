#!/usr/bin/env python3
"""Market and Macro Data Service from Python: the standard library and pandas only.

Four steps, each checked; the script exits 1 on any mismatch (docs/clients/python.md):

1. the public history of one series as CSV (/api/v1/series/{slug}.csv), read with pandas;
2. the public bulk observations (/api/v1/bulk): Parquet through pd.read_parquet when pandas has
   a Parquet engine (pyarrow or fastparquet), else the gzipped CSV; the download's sha256 is
   checked against the listing, and the series' values against step 1;
3. an as_of backtest step (key with observations:read): the series as it was known at an
   instant T (/api/v1/observations?series=...&as_of=T&format=csv), compared with the values in
   force today, and a signal computed from what was known at T only;
4. with a key holding bulk:read: the full store (/api/v1/bulk/full), every revision with its
   knowledge time; the files' sha256 are checked and, with a Parquet engine, the as_of view of
   step 3 is rebuilt from them and must be identical.

Environment: MMDS_URL (default http://127.0.0.1:4321), MMDS_KEY (steps 3 and 4; the name the
site and the TypeScript client use, MMDS_API_KEY is read as well).
Run: /usr/bin/python3 examples/python/mmds_example.py [--as-of 2026-01-01T00:00:00Z] [--json]
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

import pandas as pd

SERIES = "bls.CES0000000001"  # total nonfarm payrolls (PAYEMS), revised every month and each benchmark
SLUG = "nonfarm-payrolls"
AS_OF = "2026-01-01T00:00:00Z"
SIGNAL_MONTHS = 3


class Mismatch(Exception):
    """A value the service gave does not agree with another of its answers."""


def api_key():
    """MMDS_KEY, as the site and the TypeScript client name it; MMDS_API_KEY as an alias."""
    return os.environ.get("MMDS_KEY") or os.environ.get("MMDS_API_KEY")


def parquet_engine():
    """The Parquet engine pandas can use here, or None (Debian 12 packages neither)."""
    for name in ("pyarrow", "fastparquet"):
        try:
            __import__(name)
            return name
        except ImportError:
            continue
    return None


class Client:
    """GET requests against MMDS_URL; the key goes in the Authorization header, never the URL."""

    def __init__(self, base_url, key=None):
        self.base_url = base_url.rstrip("/")
        self.key = key

    def get(self, path, keyed=False):
        """The response body and headers of a GET; HTTP errors are raised with the error envelope."""
        url = path if path.startswith("http") else self.base_url + path
        request = urllib.request.Request(url)
        if keyed:
            if not self.key:
                raise RuntimeError(f"{path} needs an API key: set MMDS_KEY")
            request.add_header("Authorization", f"Bearer {self.key}")
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read(), response.headers

    def get_json(self, path, keyed=False):
        body, _ = self.get(path, keyed)
        return json.loads(body)

    def get_csv_pages(self, path, keyed=False):
        """Every page of a CSV endpoint as one DataFrame (the next page is in the Link header)."""
        frames = []
        while path:
            body, headers = self.get(path, keyed)
            if body.strip():
                frames.append(pd.read_csv(io.BytesIO(body), dtype={"period": str}))
            path = next_link(headers.get("Link"))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def next_link(link):
    """The target of `Link: <...>; rel="next"`, or None."""
    if not link:
        return None
    for part in link.split(","):
        target, _, rel = part.partition(";")
        if 'rel="next"' in rel:
            return target.strip().strip("<>")
    return None


def download_verified(client, path, sha256, keyed=False):
    """Downloads a file and checks its sha256 against the listing's."""
    body, _ = client.get(path, keyed)
    digest = hashlib.sha256(body).hexdigest()
    if digest != sha256:
        raise Mismatch(f"{path}: sha256 {digest} but the listing says {sha256}")
    return body


def in_force(frame):
    """Per period the revision in force: the highest revision_number (values in force today)."""
    ordered = frame.sort_values(["period", "revision_number"])
    return ordered.groupby("period", as_index=False).last().set_index("period")["value"]


def same(left, right):
    """Whether two period-indexed series hold the same periods and values (ints and floats alike)."""
    left, right = left.sort_index(), right.sort_index()
    return list(left.index) == list(right.index) and [float(v) for v in left] == [float(v) for v in right]


def signal(values, months):
    """Mean month-on-month change over the last `months` months of a monthly series."""
    changes = values.sort_index().diff().dropna()
    return float(changes.tail(months).mean())


def step_series_csv(client, slug):
    """Step 1: the public history (values in force) of one series, as CSV."""
    frame = pd.read_csv(io.BytesIO(client.get(f"/api/v1/series/{slug}.csv")[0]), dtype={"period": str})
    return frame.set_index("period")["value"]


def step_bulk(client, series, today):
    """Step 2: the public bulk observations of the latest snapshot, checked against step 1."""
    listing = client.get_json("/api/v1/bulk")
    latest = listing["meta"]["latest"]
    entry = next(item for item in listing["data"] if item["snapshot"] == latest)
    engine = parquet_engine()
    wanted = "parquet" if engine else "csv.gz"
    found = [f for f in entry["files"] if f["dataset"] == "observations" and f["format"] == wanted]
    if not found:
        raise Mismatch(f"the bulk listing of {latest} has no observations.{wanted}")
    file = found[0]
    body = download_verified(client, file["path"], file["sha256"])
    if engine:
        frame = pd.read_parquet(io.BytesIO(body), engine=engine)
    else:
        frame = pd.read_csv(io.BytesIO(gzip.decompress(body)), dtype={"period": str})
    if len(frame) != file["rows"]:
        raise Mismatch(f"{file['path']}: {len(frame)} rows but the listing says {file['rows']}")
    values = frame[frame["series_key"] == series].set_index("period")["value"].sort_index()
    if not same(values, today):
        raise Mismatch(f"bulk observations of {series} differ from /api/v1/series/{{slug}}.csv")
    return {"snapshot": latest, "format": wanted, "rows": len(frame), "series_rows": len(values)}


def step_as_of(client, series, as_of, today):
    """Step 3: what was known at `as_of`, against what is in force today."""
    query = urllib.parse.urlencode({"series": series, "as_of": as_of, "format": "csv", "limit": 10000})
    frame = client.get_csv_pages(f"/api/v1/observations?{query}", keyed=True)
    if frame.empty:
        raise Mismatch(f"nothing of {series} was known at {as_of}")
    later = frame[pd.to_datetime(frame["observed_at"]) > pd.Timestamp(as_of)]
    if len(later):
        raise Mismatch(f"the as_of view holds {len(later)} rows observed after {as_of}")
    marked = frame[frame["in_force"].astype(str).str.lower() == "true"].set_index("period")["value"]
    if not same(marked, in_force(frame)):
        raise Mismatch("in_force does not mark the highest revision known at as_of")
    known = marked.sort_index()
    common = known.index.intersection(today.index)
    revised = [p for p in common if known[p] != today[p]]
    # The signal a backtest may use at T: only periods and values known at T.
    last_known = known.index.max()
    signal_then = signal(known, SIGNAL_MONTHS)
    signal_now = signal(today[today.index <= last_known], SIGNAL_MONTHS)
    return {
        "rows": len(frame),
        "periods_known": len(known),
        "last_period_known": last_known,
        "revised_periods": len(revised),
        "example_period": revised[-1] if revised else last_known,
        "value_known_then": float(known[revised[-1] if revised else last_known]),
        "value_in_force_today": float(today[revised[-1] if revised else last_known]),
        "signal_known_then": signal_then,
        "signal_with_today_values": signal_now,
        "known": known,
    }


def step_full_store(client, series, as_of, known):
    """Step 4: the full store's files (bulk:read); the as_of view rebuilt from them with an engine."""
    try:
        listing = client.get_json("/api/v1/bulk/full", keyed=True)
    except urllib.error.HTTPError as error:
        if error.code == 403:
            return {"status": "skipped: the key lacks bulk:read"}
        raise
    source = series.split(".")[0]
    files = [f for f in listing["data"] if f["table"] == "observations" and f["source"] == source]
    bodies = [download_verified(client, f["url"], f["sha256"], keyed=True) for f in files]
    result = {"snapshot": listing["meta"]["snapshot"], "files": len(listing["data"]), "verified": len(files)}
    engine = parquet_engine()
    if not engine:
        result["status"] = "sha256 verified; as_of rebuild skipped (no Parquet engine for pandas)"
        return result
    store = pd.concat([pd.read_parquet(io.BytesIO(body), engine=engine) for body in bodies])
    store = store[store["series_key"] == series]
    observed = pd.to_datetime(store["observed_at"], utc=True)
    rebuilt = in_force(store[observed <= pd.Timestamp(as_of)]).sort_index()
    if not same(rebuilt, known):
        raise Mismatch("the as_of view rebuilt from the full store differs from /api/v1/observations")
    result["status"] = f"as_of view rebuilt from the full store with {engine}: identical"
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--series", default=SERIES)
    parser.add_argument("--slug", default=SLUG)
    parser.add_argument("--as-of", default=AS_OF)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the report")
    args = parser.parse_args()
    client = Client(os.environ.get("MMDS_URL", "http://127.0.0.1:4321"), api_key())
    report = {"series": args.series, "as_of": args.as_of, "parquet_engine": parquet_engine()}
    try:
        today = step_series_csv(client, args.slug)
        report["series_csv"] = {"periods": len(today), "last_period": today.index.max()}
        report["bulk"] = step_bulk(client, args.series, today)
        as_of = step_as_of(client, args.series, args.as_of, today)
        known = as_of.pop("known")
        report["as_of_step"] = as_of
        report["full_store"] = step_full_store(client, args.series, args.as_of, known)
    except (Mismatch, urllib.error.HTTPError) as error:
        detail = error.read().decode("utf-8", "replace") if isinstance(error, urllib.error.HTTPError) else ""
        print(f"MISMATCH: {error} {detail}".strip(), file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as error:
        # The server is down or the address is wrong: one line, not a traceback.
        reason = getattr(error, "reason", error)
        print(f"ERROR: cannot reach {client.base_url} ({reason}); is the server running? (MMDS_URL)", file=sys.stderr)
        return 1
    except RuntimeError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report, default=str))
        return 0
    step = report["as_of_step"]
    print(f"series {args.series}: {report['series_csv']['periods']} periods in force, last {report['series_csv']['last_period']}")
    bulk = report["bulk"]
    print(f"bulk {bulk['snapshot']} observations.{bulk['format']}: sha256 ok, {bulk['rows']} rows, {bulk['series_rows']} of the series, equal to the CSV")
    print(
        f"as_of {args.as_of}: {step['periods_known']} periods known (last {step['last_period_known']}), "
        f"{step['revised_periods']} revised since"
    )
    print(
        f"  {step['example_period']}: {step['value_known_then']:g} known then, {step['value_in_force_today']:g} in force today"
    )
    print(
        f"  signal (mean change over {SIGNAL_MONTHS} months to {step['last_period_known']}): "
        f"{step['signal_known_then']:.1f} from data known then, {step['signal_with_today_values']:.1f} with today's values"
    )
    print(f"full store: {report['full_store'].get('status')}")
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
