//! The schema intern cache: determinism, eviction, one parse per key under concurrency, the
//! byte budget, and the weight estimate checked against the bytes really allocated.
//!
//! This binary installs a counting `#[global_allocator]` over the system allocator that tracks
//! the bytes live on the current thread (as `alloc_bounds.rs` does).

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use tablecache_format::schema::{
    encode_schema, entry_weight, parse_schema, InternedSchema, SchemaCache,
    DEFAULT_SCHEMA_CACHE_BUDGET,
};

mod meter {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    thread_local! {
        static LIVE: Cell<isize> = const { Cell::new(0) };
    }

    /// The system allocator, counting this thread's live bytes.
    pub struct Counting;

    fn add(delta: isize) {
        // try_with: thread-local storage may already be gone while a thread exits.
        let _ = LIVE.try_with(|live| live.set(live.get() + delta));
    }

    // SAFETY: every call is forwarded to `System` unchanged; only a counter is updated.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            add(layout.size() as isize);
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            add(layout.size() as isize);
            // SAFETY: forwarded with the caller's layout.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            add(-(layout.size() as isize));
            // SAFETY: `ptr` came from `System` with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            add(new_size as isize - layout.size() as isize);
            // SAFETY: forwarded unchanged.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static GLOBAL: Counting = Counting;

    /// Bytes allocated and not yet freed on this thread.
    pub fn live() -> isize {
        LIVE.with(Cell::get)
    }
}

fn schema_bytes(i: usize) -> Vec<u8> {
    encode_schema(&Schema::new(vec![
        Field::new(format!("c{i}"), DataType::Int64, true),
        Field::new("s", DataType::Utf8, false),
    ]))
    .expect("encode")
}

#[test]
fn same_key_returns_the_same_arc() {
    let cache = SchemaCache::new(8);
    let a = cache.get_or_parse(&schema_bytes(1)).expect("parse");
    let b = cache.get_or_parse(&schema_bytes(1)).expect("parse");
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(cache.parses(), 1);
    assert_eq!(a.encoded, schema_bytes(1));
}

#[test]
fn eviction_past_the_cap_stays_correct() {
    let cache = SchemaCache::new(4);
    for round in 0..3 {
        for i in 0..20 {
            let entry = cache.get_or_parse(&schema_bytes(i)).expect("parse");
            assert_eq!(
                entry.schema.field(0).name(),
                &format!("c{i}"),
                "round {round}"
            );
            assert!(cache.len() <= 4, "cache grew to {}", cache.len());
        }
    }
    assert!(cache.parses() > 20, "evicted entries are parsed again");
}

#[test]
fn a_failed_parse_is_not_cached() {
    let cache = SchemaCache::new(4);
    assert!(cache
        .get_or_parse(b"\xff\xff\xff\xff\x04\x00\x00\x00junk")
        .is_err());
    assert!(cache.get_or_parse(b"").is_err());
    assert_eq!(cache.len(), 0);
}

#[test]
fn eight_threads_on_overlapping_keys_parse_each_key_once() {
    let cache = Arc::new(SchemaCache::new(256));
    let keys: Vec<Vec<u8>> = (0..6).map(schema_bytes).collect();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let cache = cache.clone();
            let keys = keys.clone();
            std::thread::spawn(move || {
                for n in 0..500 {
                    let i = (t + n) % keys.len();
                    let entry = cache.get_or_parse(&keys[i]).expect("parse");
                    assert_eq!(entry.schema.field(0).name(), &format!("c{i}"));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    assert_eq!(cache.parses(), 6);
}

/// A schema of `fields` Int64 columns whose names are `name_len` bytes long and unique to `tag`.
fn wide_schema_bytes(tag: usize, fields: usize, name_len: usize) -> Vec<u8> {
    let fields: Vec<Field> = (0..fields)
        .map(|i| {
            let mut name = format!("t{tag}_c{i}_");
            name.extend(std::iter::repeat_n(
                'x',
                name_len.saturating_sub(name.len()),
            ));
            Field::new(name, DataType::Int64, true)
        })
        .collect();
    encode_schema(&Schema::new(fields)).expect("encode")
}

#[test]
fn many_large_distinct_schemas_never_push_past_the_budget() {
    let budget = 4 << 20;
    let cache = SchemaCache::with_budget(256, budget);
    let mut weights = Vec::new();
    for tag in 0..40 {
        let bytes = wide_schema_bytes(tag, 1_000, 200);
        let entry = cache.get_or_parse(&bytes).expect("parse");
        assert_eq!(entry.schema.fields().len(), 1_000);
        weights.push(entry_weight(bytes.len(), &entry));
        assert!(
            cache.held_bytes() <= budget,
            "held {} bytes past the {budget}-byte budget after {} schemas",
            cache.held_bytes(),
            tag + 1
        );
        assert!(!cache.is_empty(), "an entry that fits is cached");
    }
    let weight = weights[0];
    assert!(
        weight > 200_000,
        "a 1,000-field schema weighs {weight} bytes"
    );
    assert!(cache.len() < 40 && cache.len() <= budget / weight);
    assert!(
        cache.held_bytes() + weight > budget,
        "evicts only until it fits"
    );
    assert_eq!(cache.parses(), 40);
}

#[test]
fn the_count_bound_holds_under_a_large_budget() {
    let cache = SchemaCache::with_budget(5, usize::MAX);
    for i in 0..50 {
        cache.get_or_parse(&schema_bytes(i)).expect("parse");
        assert!(cache.len() <= 5, "cache grew to {}", cache.len());
    }
    assert_eq!(cache.len(), 5);
    let five: usize = (45..50)
        .map(|i| {
            let bytes = schema_bytes(i);
            entry_weight(bytes.len(), &cache.get_or_parse(&bytes).expect("hit"))
        })
        .sum();
    assert_eq!(
        cache.held_bytes(),
        five,
        "held bytes are the sum of the cached weights"
    );
    assert_eq!(cache.parses(), 50, "the five most recent are still cached");
}

#[test]
fn an_entry_larger_than_the_budget_is_returned_but_not_cached() {
    let budget = 256 << 10;
    let cache = SchemaCache::with_budget(256, budget);
    let small = schema_bytes(1);
    let kept = cache.get_or_parse(&small).expect("parse");
    let held = cache.held_bytes();
    assert!(held > 0 && held < budget);

    let huge = wide_schema_bytes(7, 1_000, 200);
    for n in 1..=3 {
        let entry = cache.get_or_parse(&huge).expect("parse");
        assert!(entry_weight(huge.len(), &entry) > budget);
        assert_eq!(entry.schema.fields().len(), 1_000);
        assert_eq!(entry.encoded, huge);
        assert_eq!(
            cache.parses(),
            1 + n,
            "an oversized entry is parsed on every lookup"
        );
        assert_eq!(cache.len(), 1, "not cached, and nothing evicted for it");
        assert_eq!(cache.held_bytes(), held);
    }
    assert!(Arc::ptr_eq(
        &kept,
        &cache.get_or_parse(&small).expect("hit")
    ));
    assert_eq!(cache.parses(), 4);
}

#[test]
fn hits_still_hit_and_the_least_recently_used_goes_first() {
    let probe = schema_bytes(0);
    let one = entry_weight(probe.len(), &parse(&probe));
    // Room for three small entries by bytes (the count bound is far away).
    let cache = SchemaCache::with_budget(256, 3 * one + one / 2);
    let a = cache.get_or_parse(&schema_bytes(1)).expect("parse");
    cache.get_or_parse(&schema_bytes(2)).expect("parse");
    cache.get_or_parse(&schema_bytes(3)).expect("parse");
    assert_eq!(cache.len(), 3);
    // Use 1 again, so 2 is now the least recently used.
    for _ in 0..10 {
        assert!(Arc::ptr_eq(
            &a,
            &cache.get_or_parse(&schema_bytes(1)).expect("hit")
        ));
    }
    assert_eq!(cache.parses(), 3);
    cache.get_or_parse(&schema_bytes(4)).expect("parse");
    assert_eq!(cache.len(), 3);
    assert_eq!(cache.parses(), 4);
    for i in [1, 3, 4] {
        cache.get_or_parse(&schema_bytes(i)).expect("hit");
    }
    assert_eq!(cache.parses(), 4, "1, 3 and 4 stayed cached");
    cache.get_or_parse(&schema_bytes(2)).expect("parse");
    assert_eq!(cache.parses(), 5, "2 was evicted");
    assert!(cache.held_bytes() <= cache.budget_bytes());
}

#[test]
fn the_default_budget_keeps_256_usual_schemas() {
    // 200 columns with 30-byte names: a wide Spark table. The count binds, not the bytes.
    let cache = SchemaCache::new(256);
    assert_eq!(cache.budget_bytes(), DEFAULT_SCHEMA_CACHE_BUDGET);
    let keys: Vec<Vec<u8>> = (0..256).map(|t| wide_schema_bytes(t, 200, 30)).collect();
    for key in &keys {
        cache.get_or_parse(key).expect("parse");
    }
    for key in &keys {
        cache.get_or_parse(key).expect("hit");
    }
    assert_eq!(cache.len(), 256);
    assert_eq!(cache.parses(), 256, "all 256 stayed cached");
    assert!(cache.held_bytes() < DEFAULT_SCHEMA_CACHE_BUDGET / 2);
}

fn parse(bytes: &[u8]) -> InternedSchema {
    let schema = Arc::new(parse_schema(bytes).expect("parse"));
    let encoded = encode_schema(&schema).expect("encode");
    InternedSchema { schema, encoded }
}

/// Schemas of several shapes: wide with short names, few with long names, nested, dictionary,
/// time zones and metadata.
fn shapes() -> Vec<(&'static str, Vec<u8>)> {
    let meta = |f: Field| {
        f.with_metadata(
            [
                ("k1".to_string(), "v".repeat(100)),
                ("k2".into(), "w".into()),
            ]
            .into_iter()
            .collect::<std::collections::HashMap<String, String>>(),
        )
    };
    let nested = Schema::new(vec![
        Field::new(
            "s",
            DataType::Struct(Fields::from(vec![
                Field::new("a", DataType::Int32, true),
                Field::new_list("l", Field::new_list_field(DataType::Utf8, true), true),
            ])),
            true,
        ),
        Field::new_map(
            "m",
            "entries",
            Field::new("key", DataType::Utf8, false),
            Field::new("value", DataType::Float64, true),
            false,
            true,
        ),
        Field::new(
            "d",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Microsecond, Some("Europe/Paris".into())),
            true,
        ),
        meta(Field::new("withmeta", DataType::Date32, true)),
    ]);
    let nested_wide = Schema::new(
        (0..300)
            .map(|i| {
                Field::new(
                    format!("struct_{i}"),
                    DataType::Struct(Fields::from(vec![
                        Field::new("x", DataType::Int64, true),
                        meta(Field::new("y", DataType::Utf8, true)),
                    ])),
                    true,
                )
            })
            .collect::<Vec<_>>(),
    )
    .with_metadata(
        [("spark".to_string(), "x".repeat(1_000))]
            .into_iter()
            .collect::<std::collections::HashMap<String, String>>(),
    );
    vec![
        ("two fields", schema_bytes(3)),
        ("2,000 short names", wide_schema_bytes(0, 2_000, 8)),
        ("200 columns, 30-byte names", wide_schema_bytes(1, 200, 30)),
        ("50 names of 60,000 bytes", wide_schema_bytes(2, 50, 60_000)),
        ("nested", encode_schema(&nested).expect("encode")),
        (
            "300 structs with metadata",
            encode_schema(&nested_wide).expect("encode"),
        ),
    ]
}

#[test]
fn the_weight_covers_the_bytes_an_entry_really_holds() {
    for (what, bytes) in shapes() {
        let before = meter::live();
        let key: Arc<[u8]> = Arc::from(bytes.as_slice());
        let entry = Arc::new(parse(&bytes));
        let held = (meter::live() - before) as usize;
        let weight = entry_weight(key.len(), &entry);
        eprintln!(
            "{what}: {} key bytes, {held} bytes allocated, weight {weight}",
            key.len()
        );
        assert!(
            weight >= held,
            "{what}: weight {weight} < {held} bytes allocated"
        );
        assert!(
            weight <= 2 * held + 1024,
            "{what}: weight {weight} far above the {held} bytes allocated"
        );
        drop((key, entry));
    }
}
