"""What every end-to-end script shares: the result check and the exact row comparison.

Imported by the e2e scripts (spark-submit puts a script's directory on sys.path).
"""


class Results:
    """Counts checks; prints each failure with its detail."""

    def __init__(self, prefix="", echo_passes=False):
        self.passed = 0
        self.failed = 0
        self.prefix = prefix
        self.echo_passes = echo_passes

    def check(self, name, ok, detail=""):
        """Records one check; returns whether it passed."""
        if ok:
            self.passed += 1
            if self.echo_passes:
                print(f"ok   {self.prefix}{name} {detail}".rstrip(), flush=True)
        else:
            self.failed += 1
            print(f"FAIL {self.prefix}{name} {detail}".rstrip()[:4000], flush=True)
        return bool(ok)

    def summary(self, suite):
        """The last line every suite prints: "SUITE: N passed, N failed"."""
        return f"{suite}: {self.passed} passed, {self.failed} failed"


def rows(df, ordered=False):
    """The rows as reprs (exact for NaN, -0.0, bytes and nested values), sorted unless the
    query orders them itself."""
    got = [repr(tuple(r)) for r in df.collect()]
    return got if ordered else sorted(got)
