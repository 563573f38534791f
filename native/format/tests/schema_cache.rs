//! The schema intern cache: determinism, eviction, and one parse per key under concurrency.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use tablecache_format::schema::{encode_schema, SchemaCache};

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
