"""The benchmark tables: columns (Spark SQL over `id`, deterministic) and read phases per table.

A table's queries name the cached view `{t}`: the session runs each one on the real cache and on
an 8-row cache of the same schema and serializer (the floor: Spark's fixed per-query cost). Every
query's result must be deterministic (no floating-point sums whose order depends on scheduling):
every mode must return identical rows, or the run fails.
"""

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
