//! Names quoted in error text, kept short (ARCHITECTURE.md, "Error text").
//!
//! A field name may be up to 64 KiB ([`crate::schema_bounds::MAX_NAME_BYTES`]), and an error
//! message is logged by Spark on every retry of every task that meets it: so every name or
//! schema path segment that an error quotes is cut to [`MAX_QUOTED_NAME_BYTES`] on a UTF-8
//! character boundary, followed by a marker that says how much was cut (`…(+N bytes)`). The
//! Java shim's `dev.tablecache.ErrorText` applies the same rule.

use std::borrow::Cow;

/// Most bytes of one name (one path segment) that an error message quotes.
pub const MAX_QUOTED_NAME_BYTES: usize = 64;

/// Most bytes of text from a library (Arrow's error messages, which may quote names and print
/// types with their field names) that an error message carries.
pub const MAX_FOREIGN_TEXT_BYTES: usize = 1024;

/// `name` as error text: at most [`MAX_QUOTED_NAME_BYTES`] bytes of it, cut on a character
/// boundary, then `…(+N bytes)` when `N` bytes were cut.
pub fn quoted(name: &str) -> Cow<'_, str> {
    cut(name, MAX_QUOTED_NAME_BYTES)
}

/// [`quoted`] for a name read from raw bytes (invalid UTF-8 shown as U+FFFD).
pub fn quoted_bytes(name: &[u8]) -> String {
    if name.len() <= MAX_QUOTED_NAME_BYTES {
        return String::from_utf8_lossy(name).into_owned();
    }
    // Back off from a UTF-8 continuation byte (0b10xx_xxxx), at most three.
    let mut head = MAX_QUOTED_NAME_BYTES;
    while head > MAX_QUOTED_NAME_BYTES - 3 && name[head] & 0xc0 == 0x80 {
        head -= 1;
    }
    let shown = String::from_utf8_lossy(&name[..head]);
    format!("{shown}…(+{} bytes)", name.len() - head)
}

/// Text from another library that may quote names, made safe to put in an error: every run of
/// more than [`MAX_QUOTED_NAME_BYTES`] bytes between quotes, spaces and punctuation is cut as
/// [`quoted`] cuts a name, and the whole is cut to [`MAX_FOREIGN_TEXT_BYTES`].
pub fn foreign(text: &str) -> Cow<'_, str> {
    let long_run = text
        .split(is_delimiter)
        .any(|run| run.len() > MAX_QUOTED_NAME_BYTES);
    if !long_run && text.len() <= MAX_FOREIGN_TEXT_BYTES {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(MAX_FOREIGN_TEXT_BYTES + 32));
    let mut run_start = 0;
    for (i, c) in text.char_indices() {
        if is_delimiter(c) {
            out.push_str(&quoted(&text[run_start..i]));
            out.push(c);
            run_start = i + c.len_utf8();
        }
    }
    out.push_str(&quoted(&text[run_start..]));
    match cut(&out, MAX_FOREIGN_TEXT_BYTES) {
        Cow::Borrowed(_) => Cow::Owned(out),
        Cow::Owned(short) => Cow::Owned(short),
    }
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || "\"'`.,:;()[]{}<>=/\\|…".contains(c)
}

fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if text.len() <= max {
        return Cow::Borrowed(text);
    }
    let head = floor_char_boundary(text, max);
    Cow::Owned(format!("{}…(+{} bytes)", &text[..head], text.len() - head))
}

/// The largest index at most `max` that is a character boundary of `text`.
fn floor_char_boundary(text: &str, max: usize) -> usize {
    if max >= text.len() {
        return text.len();
    }
    (0..=max)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_unchanged() {
        assert!(matches!(quoted("price"), Cow::Borrowed("price")));
        assert_eq!(quoted_bytes(b"price"), "price");
        let exactly = "x".repeat(MAX_QUOTED_NAME_BYTES);
        assert_eq!(quoted(&exactly), exactly.as_str());
        assert_eq!(quoted_bytes(exactly.as_bytes()), exactly);
        assert!(matches!(
            foreign("column types must match"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn long_names_are_cut_with_the_count() {
        let name = format!("prefix_{}", "y".repeat(60_000));
        let q = quoted(&name);
        assert!(q.starts_with("prefix_yyy"));
        assert!(q.ends_with(&format!("…(+{} bytes)", name.len() - 64)));
        assert!(q.len() < 100);
        assert_eq!(quoted_bytes(name.as_bytes()), q);
    }

    #[test]
    fn multibyte_names_are_cut_on_a_boundary() {
        // 'é' is 2 bytes: 63 bytes of 'a' then 'é' would straddle byte 64.
        let name = format!("{}é{}", "a".repeat(63), "€".repeat(1000));
        let q = quoted(&name);
        assert_eq!(
            q,
            format!("{}…(+{} bytes)", "a".repeat(63), name.len() - 63)
        );
        assert_eq!(quoted_bytes(name.as_bytes()), q);
        let euros = "€".repeat(100); // 3 bytes each: 21 fit in 64
        assert_eq!(
            quoted(&euros),
            format!("{}…(+{} bytes)", "€".repeat(21), 300 - 63)
        );
        assert_eq!(quoted_bytes(euros.as_bytes()), quoted(&euros));
    }

    #[test]
    fn invalid_utf8_is_shown_lossily_and_counted_in_raw_bytes() {
        let mut name = vec![0xff; 10];
        name.extend(std::iter::repeat_n(b'z', 100));
        let q = quoted_bytes(&name);
        assert!(q.starts_with('\u{fffd}'));
        assert!(q.ends_with(" bytes)"));
        assert!(q.len() < 120, "{q}");
        assert_eq!(quoted_bytes(&[0xff, 0xfe]), "\u{fffd}\u{fffd}");
    }

    #[test]
    fn foreign_text_cuts_each_long_run_and_the_whole() {
        let name = "n".repeat(60_000);
        let text = format!("expected Struct(\"{name}\": Int64) but found Int32");
        let f = foreign(&text);
        assert_eq!(
            f,
            format!(
                "expected Struct(\"{}…(+{} bytes)\": Int64) but found Int32",
                "n".repeat(64),
                60_000 - 64
            )
        );
        let many = "word ".repeat(1_000);
        let f = foreign(&many);
        assert!(f.len() < MAX_FOREIGN_TEXT_BYTES + 32 && f.ends_with(" bytes)"));
        // Already cut text is not cut again.
        let once = quoted(&name).into_owned();
        assert_eq!(foreign(&once), once);
    }
}
