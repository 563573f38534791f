//! Error text quotes long names cut to 64 bytes per path segment (`names.rs`), so a 60,000-byte
//! field name cannot flood the logs on every retry.

use arrow_schema::{DataType, Field, Fields, Schema, UnionFields, UnionMode};
use tablecache_format::schema::{encode_schema, parse_schema};

fn long_name(prefix: &str, fill: char) -> String {
    let mut name = prefix.to_string();
    while name.len() < 60_000 {
        name.push(fill);
    }
    name
}

#[test]
fn a_rejected_type_under_a_long_path_names_each_segment_briefly() {
    let outer = long_name("outer_", 'o');
    let inner = long_name("inner_", 'i');
    let union = DataType::Union(
        UnionFields::try_new(vec![0], vec![Field::new("u", DataType::Int32, true)]).expect("union"),
        UnionMode::Sparse,
    );
    let schema = Schema::new(vec![Field::new(
        &outer,
        DataType::Struct(Fields::from(vec![Field::new(&inner, union, true)])),
        true,
    )]);
    let bytes = encode_schema(&schema).expect("encode");
    let message = parse_schema(&bytes)
        .expect_err("a union is refused")
        .to_string();
    assert!(message.len() < 400, "{} bytes: {message}", message.len());
    assert!(
        message.contains("outer_ooo") && message.contains("inner_iii"),
        "{message}"
    );
    assert!(
        message.contains(&format!("…(+{} bytes)", outer.len() - 64)),
        "{message}"
    );
}

#[test]
fn a_bad_decimal_names_its_field_briefly_and_cuts_multibyte_names_on_a_boundary() {
    // 'é' is two bytes: after the 7-byte prefix, byte 64 falls inside one.
    let name = long_name("dec_col", 'é');
    let schema = Schema::new(vec![Field::new(&name, DataType::Decimal128(50, 2), true)]);
    let bytes = encode_schema(&schema).expect("encode");
    let message = parse_schema(&bytes)
        .expect_err("precision 50 is refused")
        .to_string();
    assert!(message.len() < 300, "{} bytes: {message}", message.len());
    let kept = format!("dec_col{}", "é".repeat(28)); // 7 + 56 = 63 bytes
    assert!(
        message.contains(&format!("{kept}…(+{} bytes)", name.len() - kept.len())),
        "{message}"
    );
}
