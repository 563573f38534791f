"""The benchmark tables: columns (Spark SQL over `id`, deterministic) and read phases per table.

A table's queries name the cached view `{t}`: the session runs each one on the real cache and on
an 8-row cache of the same schema and serializer (the floor: Spark's fixed per-query cost). Every
query's result must be deterministic (no floating-point sums whose order depends on scheduling):
every mode must return identical rows, or the run fails.

`standard`, `wide` and `strings` measure kinds of columns (affine, low-cardinality, random,
long strings). `timeseries` and `logs` (issue #27) are realistic data no encoding here was tuned
for: market ticks and sensor readings (timestamps with jitter, prices with 2 decimals that move
like a random walk, readings with 1-3 decimals, an exact DECIMAL amount, a date, a per-sensor
counter, status codes, a flag), and application log lines (out-of-order timestamps, skewed
levels and services, hosts, templated messages with substituted numbers, random trace ids
shared by the lines of a request, long-tailed latencies, paths). Their columns are built from
hash(id, seed) and rand(seed) with integer arithmetic and one last division or round, so that
they are deterministic and every session computes the same bits; the comments beside each
column say what it models. README "Benchmark" describes every table.
"""

import hashlib

# Rows of the tiny cache whose query times are the read floors.
TINY_ROWS = 8

# 4 sequential/affine longs, 4 low-cardinality longs, 4 doubles, 4 low-cardinality strings.
STANDARD_COLUMNS = [
    "id AS a0",
    "id * 3 + 7 AS a1",
    "1000000000 - id * 2 AS a2",
    "id + 1099511627776 AS a3",
    "id % 16 AS k0",
    "id % 100 AS k1",
    "(id * 7) % 1000 AS k2",
    "id % 5 AS k3",
    "id * 0.25D AS d0",
    "(id % 1000) / 10.0D AS d1",
    "rand(42) AS d2",
    "id / 3.0D AS d3",
    "concat('cat_', CAST(id % 10 AS STRING)) AS s0",
    "concat('region-', CAST(id % 50 AS STRING)) AS s1",
    "element_at(array('alpha', 'beta', 'gamma', 'delta', 'epsilon'), CAST(id % 5 AS INT) + 1) AS s2",
    "concat('user_', lpad(CAST(id % 1000 AS STRING), 4, '0')) AS s3",
]


def _names(columns):
    return [c.rsplit(" AS ", 1)[1] for c in columns]


def _max_all(columns):
    return "SELECT " + ", ".join(f"max({c})" for c in _names(columns)) + " FROM {t}"


def _wide_columns(n=256):
    """n columns cycling through 4 kinds (index % 4): affine long, double, low-cardinality long,
    low-cardinality string; every column differs from its neighbours of the same kind."""
    cols = []
    cards = [2, 7, 16, 100, 1000, 5000, 30000, 100000]
    for i in range(n):
        j = i // 4
        kind = i % 4
        if kind == 0:
            cols.append(f"id * {j % 13 + 1} + {j * 1009} AS c{i:03d}")
        elif kind == 1:
            # A quarter random, the rest few distinct values or a smooth ramp.
            if j % 4 == 0:
                cols.append(f"rand({j}) AS c{i:03d}")
            elif j % 4 == 1:
                cols.append(f"(id % {cards[j % 8]}) / 8.0D AS c{i:03d}")
            else:
                cols.append(f"id * {j % 7 + 1}.5D + {j}.25D AS c{i:03d}")
        elif kind == 2:
            cols.append(f"(id * {2 * j + 1}) % {cards[j % 8]} AS c{i:03d}")
        else:
            cols.append(f"concat('v{j}_', CAST((id * {j + 3}) % {cards[(j + 3) % 8]} AS STRING)) AS c{i:03d}")
    return cols


WIDE_COLUMNS = _wide_columns()

_URL = (
    "concat('https://', element_at(array('www.example.com', 'shop.example.org', "
    "'news.example.net', 'api.example.io', 'cdn.static-example.com'), CAST(id % 5 AS INT) + 1), '/', "
    "element_at(array('products', 'articles', 'users', 'search', 'cart', 'checkout', 'help'), "
    "CAST((id DIV 5) % 7 AS INT) + 1), '/', CAST(id % 100000 AS STRING), '?ref=', "
    "element_at(array('home', 'email', 'ad', 'social'), CAST((id * 3) % 4 AS INT) + 1), "
    "'&utm_campaign=spring_sale_', CAST(id % 37 AS STRING), '&session=', "
    "substr(sha2(CAST(id AS STRING), 256), 1, 24)) AS url"
)
_JSON = (
    "concat('{\"user_id\":', CAST(id % 1000000 AS STRING), ',\"event\":\"', "
    "element_at(array('click', 'view', 'purchase', 'scroll', 'login', 'logout'), CAST(id % 6 AS INT) + 1), "
    "'\",\"ts\":', CAST(1700000000000 + id * 37 AS STRING), ',\"amount\":', "
    "CAST(id % 100000 AS STRING), ',\"currency\":\"', element_at(array('EUR', 'USD', 'GBP'), "
    "CAST(id % 3 AS INT) + 1), '\",\"tags\":[\"', element_at(array('new', 'returning', 'vip', 'trial'), "
    "CAST((id * 5) % 4 AS INT) + 1), '\",\"', element_at(array('mobile', 'desktop', 'tablet'), "
    "CAST((id * 11) % 3 AS INT) + 1), '\"]}') AS json"
)
_AGENT = (
    "element_at(array("
    "'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36', "
    "'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15', "
    "'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', "
    "'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148', "
    "'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36', "
    "'curl/8.7.1 (x86_64-pc-linux-gnu) libcurl/8.7.1 OpenSSL/3.2.1 zlib/1.3.1 brotli/1.1.0 libpsl/0.21.5'), "
    "CAST((id * 13) % 6 AS INT) + 1) AS agent"
)
_TEXT = (
    "concat_ws(' ', "
    + ", ".join(
        f"element_at(array('lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', "
        f"'elit', 'sed', 'do', 'eiusmod', 'tempor', 'incididunt'), CAST((id DIV {p} + {p}) % 13 AS INT) + 1)"
        for p in (1, 3, 7, 11, 17, 19, 23, 29, 31, 37)
    )
    + ", concat('#id-', lpad(CAST(id AS STRING), 10, '0'))) AS text"
)
STRINGS_COLUMNS = [
    "id AS key",
    _URL,                                    # ~100-120 bytes, high cardinality
    _JSON,                                   # ~100-120 bytes, high cardinality
    _AGENT,                                  # 70-115 bytes, 6 distinct values
    _TEXT,                                   # ~51-123 bytes, 10 words + the id
    "sha2(CAST(id AS STRING), 256) AS hash",  # 64 hex characters, random
]


# Both realistic tables start at 2025-01-01T00:00:00Z (epoch milliseconds; timestamp_millis and
# the dates below do not depend on the session time zone). Spark SQL reads `100.0` as a DECIMAL:
# doubles are made with a `D` suffix. Everything is integer arithmetic on hash(id, seed) until a
# last division or round (no transcendental functions), so every session computes the same bits.
_EPOCH_MS = 1735689600000

# ---- timeseries: market ticks and sensor readings, one row every ~250 ms ----
_TS_STEP_MS = 250
_TS_JITTER = "pmod(hash(id, 6), 250)"                   # < the step: ts increases with id
_TS_MS = f"({_EPOCH_MS} + id * {_TS_STEP_MS} + {_TS_JITTER})"
_SENSOR = "pmod(hash(id, 1), 400)"                      # 400 sensors/instruments, uniformly
_SYMBOL_IX = f"pmod({_SENSOR}, 50)"                     # each sensor reports one of 50 symbols
_SYMBOLS = ("AAPL MSFT AMZN GOOGL META NVDA TSLA BRK.B JPM V JNJ WMT PG MA UNH HD XOM CVX KO PEP "
            "BAC PFE ABBV MRK COST AVGO CSCO ADBE CRM NFLX INTC AMD ORCL QCOM TXN IBM NKE DIS MCD "
            "SBUX BA CAT GE MMM HON UPS T VZ GS MS").split()
# Price in cents: a per-symbol level plus random steps of three time scales (blocks of 500,000,
# 50,000 and 5,000 rows, the same for every sensor of the symbol) and a tick of noise: a random
# walk's look (long flat stretches, jumps) without a running sum.
_CENTS = (f"(1000 + {_SYMBOL_IX} * 800 + pmod(hash(id DIV 500000, {_SYMBOL_IX}), 2000) "
          f"+ pmod(hash(id DIV 50000, {_SYMBOL_IX}), 600) + pmod(hash(id DIV 5000, {_SYMBOL_IX}), 200) "
          f"+ pmod(hash(id, 2), 50))")
# Lot sizes, mostly round numbers.
_QTY = ("(element_at(array(1, 5, 10, 10, 25, 50, 100, 100, 100, 200, 250, 500, 1000), "
        "pmod(hash(id, 3), 13) + 1) * (1 + pmod(hash(id, 4), 3)))")
# A reading in thousandths (15-40 units: a temperature, a pressure): per-sensor base, a drift
# per 20,000 rows, noise; sensors of three classes report 1, 2 or 3 decimals.
_MILLI = (f"(15000 + pmod({_SENSOR}, 20) * 1000 + pmod(hash(id DIV 20000, {_SENSOR}), 3000) "
          f"+ pmod(hash(id, 5), 1000))")
_LEVEL = "pmod(hash(id, 9), 1000)"
TIMESERIES_COLUMNS = [
    f"timestamp_millis({_TS_MS}) AS ts",
    f"CAST({_SENSOR} AS INT) AS sensor_id",
    "element_at(array(" + ", ".join(f"'{s}'" for s in _SYMBOLS) + f"), {_SYMBOL_IX} + 1) AS symbol",
    f"round({_CENTS} / 100.0D, 2) AS price",
    f"CAST({_QTY} AS INT) AS quantity",
    f"CASE pmod({_SENSOR}, 3) WHEN 0 THEN round({_MILLI} / 1000.0D, 1) "
    f"WHEN 1 THEN round({_MILLI} / 1000.0D, 2) ELSE round({_MILLI} / 1000.0D, 3) END AS reading",
    "rand(17) AS ratio",
    # price x quantity, exactly (decimal arithmetic).
    f"CAST(CAST({_CENTS} AS BIGINT) * {_QTY} / 100 AS DECIMAL(12, 2)) AS amount",
    f"date_add(DATE'2025-01-01', CAST({_TS_MS} DIV 86400000 - {_EPOCH_MS // 86400000} AS INT)) AS day",
    # A cumulative counter per sensor (a meter, a sequence number): a random start per sensor
    # plus a global clock, so it increases along every sensor's rows.
    f"CAST(pmod(hash({_SENSOR}, 8), 1000000) AS BIGINT) * 100000 + id * 4 + pmod(hash(id, 7), 4) AS counter",
    f"CASE WHEN {_LEVEL} < 940 THEN 0 WHEN {_LEVEL} < 980 THEN 1 WHEN {_LEVEL} < 995 THEN 2 "
    f"WHEN {_LEVEL} < 999 THEN 3 ELSE 9 END AS status",
    "pmod(hash(id, 10), 20) = 0 AS flag",
]

# ---- logs: application log lines of 20 services, one every ~20 ms, merged out of order ----
_LOG_MS = f"({_EPOCH_MS} + id * 20 + pmod(hash(id, 101), 500))"
_SEV = "pmod(hash(id, 102), 1000)"
# Skewed: the smaller of two uniform picks, so service 0 logs 39 times as much as service 19.
_SVC = "least(pmod(hash(id, 104), 20), pmod(hash(id, 105), 20))"
_SERVICES = ("api-gateway auth orders payments inventory search recommendations cart checkout "
             "shipping notifications users catalog pricing reviews analytics billing "
             "fraud-detection media admin").split()
_LAT = ("CASE WHEN pmod(hash(id, 120), 100) < 80 THEN 1 + pmod(hash(id, 121), 50) "
        "WHEN pmod(hash(id, 120), 100) < 97 THEN 50 + pmod(hash(id, 121), 450) "
        "ELSE 500 + pmod(hash(id, 121), 9500) END")
# Lines of one request share a trace id: rows id, id + 8 and id + 16 of every 24 (interleaved
# with 7 other requests), a random 32-hex-digit id.
_TRACE_GROUP = "(id DIV 24) * 8 + pmod(id, 8)"


def _n(seed, mod):
    return f"CAST(pmod(hash(id, {seed}), {mod}) AS STRING)"


_MESSAGE_OK = [
    f"concat('GET /api/v2/orders/', {_n(110, 10000000)}, ' completed in ', CAST({_LAT} AS STRING), "
    f"' ms status=200 bytes=', {_n(111, 100000)})",
    f"concat('User ', {_n(112, 5000000)}, ' logged in from 10.', {_n(113, 256)}, '.', {_n(114, 256)}, "
    f"'.', {_n(115, 256)}, ' via password+totp, session=', substr(md5(concat('session-', CAST(id AS STRING))), 1, 12))",
    f"concat('Cache miss for key product:', {_n(116, 2000000)}, ':details; loaded from db shard ', "
    f"{_n(117, 64)}, ' in ', CAST({_LAT} AS STRING), ' ms')",
    f"concat('Processed batch ', {_n(118, 100000)}, ' (', {_n(119, 5000)}, ' records) for tenant acme-', "
    f"{_n(122, 300)}, ' in ', CAST({_LAT} AS STRING), ' ms (queue depth ', {_n(123, 1000)}, ')')",
    f"concat('Scheduled job cleanup-sessions finished: deleted ', {_n(124, 100000)}, "
    f"' expired rows, next run in ', {_n(125, 3600)}, ' s')",
    f"concat('Published event OrderCreated{{orderId=', {_n(110, 10000000)}, ', customerId=', "
    f"{_n(112, 5000000)}, ', items=', {_n(126, 20)}, ', total=', {_n(127, 2000)}, '.', "
    f"lpad({_n(128, 100)}, 2, '0'), ' EUR}} to topic orders.v1 partition ', {_n(129, 32)})",
]
_MESSAGE_BAD = [
    f"concat('Connection to postgres://db-', {_n(117, 64)}, '.internal:5432/orders timed out after ', "
    f"CAST({_LAT} AS STRING), ' ms, retrying (attempt ', CAST(1 + pmod(hash(id, 126), 5) AS STRING), ' of 5)')",
    # A stack trace: a multi-line message.
    f"concat('java.lang.IllegalStateException: order ', {_n(110, 10000000)}, ' already shipped"
    f"\\n\\tat com.example.orders.OrderService.cancel(OrderService.java:', {_n(127, 900)}, ')"
    f"\\n\\tat com.example.orders.OrderApi.cancel(OrderApi.java:', {_n(128, 300)}, ')')",
    f"concat('Upstream inventory returned HTTP 503 for request ', substr(md5(CAST({_TRACE_GROUP} AS STRING)), 1, 16), "
    f"' after ', CAST({_LAT} AS STRING), ' ms; circuit breaker half-open')",
]


def _case(selector, branches):
    return (f"CASE {selector} " + " ".join(f"WHEN {i} THEN {b}" for i, b in enumerate(branches[:-1]))
            + f" ELSE {branches[-1]} END")


LOGS_COLUMNS = [
    f"timestamp_millis({_LOG_MS}) AS ts",
    f"CASE WHEN {_SEV} < 700 THEN 'INFO' WHEN {_SEV} < 900 THEN 'DEBUG' WHEN {_SEV} < 970 THEN 'WARN' "
    f"WHEN {_SEV} < 995 THEN 'ERROR' ELSE 'FATAL' END AS level",
    "element_at(array(" + ", ".join(f"'{s}'" for s in _SERVICES) + f"), {_SVC} + 1) AS service",
    # 10 hosts per service, named like EC2's private DNS names.
    f"concat('ip-10-0-', CAST({_SVC} AS STRING), '-', CAST(11 + pmod(hash(id, 106), 10) * 23 AS STRING)) AS host",
    # Warnings and errors get failure messages, the rest routine ones.
    f"CASE WHEN {_SEV} >= 900 THEN {_case(f'pmod(hash(id, 103), {len(_MESSAGE_BAD)})', _MESSAGE_BAD)} "
    f"ELSE {_case(f'pmod(hash(id, 103), {len(_MESSAGE_OK)})', _MESSAGE_OK)} END AS message",
    f"md5(CAST({_TRACE_GROUP} AS STRING)) AS trace_id",
    f"CAST({_LAT} AS INT) AS latency_ms",
    "concat('/api/v', CAST(1 + pmod(hash(id, 130), 3) AS STRING), '/', element_at(array('orders', "
    "'users', 'products', 'cart', 'checkout', 'search', 'payments', 'inventory', 'reviews', "
    "'sessions'), pmod(hash(id, 131), 10) + 1), '/', CAST(pmod(hash(id, 132), 34) AS STRING)) AS path",
]


def _standard_queries(rows):
    point = rows // 2 + 7
    return [
        ("read_1_of_16", "sum 1/16", "SELECT sum(a1) FROM {t}"),
        ("read_4_of_16_groupby", "group-by 4/16",
         "SELECT k0, count(*), sum(a1), round(avg(d0), 6), max(s0) FROM {t} GROUP BY k0 ORDER BY k0"),
        ("filter_point_2_of_16", "point filter 2/16", f"SELECT a2, s1 FROM {{t}} WHERE a0 = {point}"),
        ("max_all_16", "max of all 16", _max_all(STANDARD_COLUMNS)),
    ]


def _wide_queries(rows):
    point = rows // 2 + 7
    # 8 columns, 2 of each kind: sums of longs, max of doubles and strings (deterministic).
    several = ("SELECT sum(c000), sum(c004), max(c001), max(c005), sum(c002), sum(c006), "
               "max(c003), max(c007) FROM {t}")
    return [
        ("read_1_of_256", "sum 1/256", "SELECT sum(c004) FROM {t}"),
        ("read_8_of_256", "aggregate 8/256", several),
        ("filter_point_4_of_256", "point filter 4/256",
         f"SELECT c001, c002, c003, c255 FROM {{t}} WHERE c000 = {point}"),
        ("max_all_256", "max of all 256", _max_all(WIDE_COLUMNS)),
    ]


def _strings_queries(rows):
    point = rows // 2 + 7
    return [
        ("read_1_string", "length of 1 string", "SELECT sum(length(json)) FROM {t}"),
        ("groupby_strings", "group-by agent, 3 strings",
         "SELECT agent, count(*), max(url), sum(length(text)) FROM {t} GROUP BY agent ORDER BY agent"),
        ("filter_point_key", "point filter on key", f"SELECT url, json FROM {{t}} WHERE key = {point}"),
        ("filter_string_eq", "string equality filter",
         f"SELECT key, url FROM {{t}} WHERE hash = sha2('{point}', 256)"),
        ("max_all_strings", "max of all 6", _max_all(STRINGS_COLUMNS)),
    ]


def _timeseries_queries(rows):
    point = rows // 2 + 7
    start = _EPOCH_MS + point * _TS_STEP_MS
    return [
        ("read_1_of_12", "sum 1/12", "SELECT sum(quantity) FROM {t}"),
        ("groupby_symbol", "group-by symbol, 4 columns",
         "SELECT symbol, count(*), sum(quantity), sum(amount), min(price), max(price) FROM {t} "
         "GROUP BY symbol ORDER BY symbol"),
        # The 4 rows of one second.
        ("filter_time_range", "time-range filter (1 s)",
         f"SELECT ts, sensor_id, price, quantity FROM {{t}} WHERE ts BETWEEN "
         f"timestamp_millis({start}) AND timestamp_millis({start + 999}) ORDER BY ts"),
        ("sensor_hourly", "one sensor per hour",
         "SELECT date_trunc('HOUR', ts) AS hour, count(*), min(reading), max(reading), "
         "max(counter) FROM {t} WHERE sensor_id = 42 GROUP BY 1 ORDER BY 1"),
        ("max_all_12", "max of all 12", _max_all(TIMESERIES_COLUMNS)),
    ]


def _logs_queries(rows):
    point = rows // 2 + 7
    trace = hashlib.md5(str((point // 24) * 8 + point % 8).encode()).hexdigest()
    return [
        ("read_1_of_8", "sum 1/8", "SELECT sum(latency_ms) FROM {t}"),
        ("groupby_service_level", "group-by service, level",
         "SELECT service, level, count(*), sum(latency_ms), max(latency_ms) FROM {t} "
         "GROUP BY service, level ORDER BY service, level"),
        # The 3 lines of one request.
        ("filter_trace", "point filter on trace_id",
         f"SELECT ts, level, service, host, message FROM {{t}} WHERE trace_id = '{trace}' "
         f"ORDER BY ts, message, host"),
        ("search_errors", "error search (LIKE)",
         "SELECT service, count(*), max(ts), max(host) FROM {t} WHERE level IN ('ERROR', 'FATAL') "
         "AND message LIKE '%timed out%' GROUP BY service ORDER BY service"),
        ("max_all_8", "max of all 8", _max_all(LOGS_COLUMNS)),
    ]


TABLES = {
    "standard": {
        "columns": STANDARD_COLUMNS,
        "rows": 20_000_000,
        "describe": "4 affine longs, 4 low-cardinality longs, 4 doubles, 4 low-cardinality strings",
        "queries": _standard_queries,
    },
    "wide": {
        "columns": WIDE_COLUMNS,
        "rows": 1_000_000,
        "describe": "64 each of affine longs, doubles (1/4 random), low-cardinality longs and "
                    "low-cardinality strings, interleaved",
        "queries": _wide_queries,
    },
    "strings": {
        "columns": STRINGS_COLUMNS,
        "rows": 5_000_000,
        "describe": "a long key; URL-like and JSON-like text (100-120 B), 6 user agents "
                    "(70-115 B), word text (51-123 B), a SHA-256 hex (64 B)",
        "queries": _strings_queries,
    },
    "timeseries": {
        "columns": TIMESERIES_COLUMNS,
        "rows": 3_000_000,
        "describe": "ticks/readings every ~250 ms: a timestamp, 400 sensors, 50 symbols, a 2-decimal "
                    "price, an int quantity, a 1-3-decimal reading, a random double in [0,1), a "
                    "DECIMAL(12,2) amount, a date, a per-sensor counter, a status code, a flag",
        "queries": _timeseries_queries,
    },
    "logs": {
        "columns": LOGS_COLUMNS,
        "rows": 2_000_000,
        "describe": "log lines: an out-of-order timestamp, 5 skewed levels, 20 skewed services, 200 "
                    "hosts, a templated message (60-190 B), a 32-hex trace id, a long-tailed "
                    "latency, ~1,000 paths",
        "queries": _logs_queries,
    },
}


def queries(table, rows):
    """[(phase key, label, SQL with {t} for the cached view)] of a table."""
    return TABLES[table]["queries"](rows)


def phases(table, rows=1000):
    """[(phase key, label)] of a table, build first."""
    return [("build", "build")] + [(k, label) for k, label, _ in queries(table, rows)]


def select_tables(requested):
    names = list(TABLES) if requested == "all" else requested.split(",")
    unknown = [t for t in names if t not in TABLES]
    if unknown:
        raise SystemExit(f"unknown tables: {', '.join(unknown)}; known: {', '.join(TABLES)}, all")
    return names
