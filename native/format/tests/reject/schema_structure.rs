//! Flatbuffer structure damage in the embedded schema (FORMAT.md §2, "Schema bounds"): what the
//! flatbuffers crate's verifier (arrow-ipc's `root_as_message`) refuses and Arrow Java's
//! accessors would read anyway. The Java side refuses them with `FlatbufferVerifier`; the
//! differential test found each kind. Checksums re-forged.

use super::forge::{batch, col, frame_of, reseal, u32_at};
use super::{RejectCase, Section};
use arrow_array::{Int64Array, TimestampMicrosecondArray};
use arrow_ipc::{Field, Timestamp};

fn case(name: &'static str, what: &'static str, bytes: Vec<u8>) -> RejectCase {
    RejectCase {
        name,
        kind: "CORRUPT_FRAME",
        section: Section::Schema,
        what,
        bytes,
    }
}

/// Where the edits go, as positions in the frame.
struct Spots {
    /// The zero byte after field `x`'s name.
    name_terminator: usize,
    /// The zero byte after field `t`'s time zone.
    timezone_terminator: usize,
    /// The offset from field `t` to its type table.
    type_offset: usize,
    /// Field `x`'s vtable entry for its type table.
    type_entry: usize,
    /// The schema table's vtable (its first u16 is the vtable's length).
    schema_vtable: usize,
}

/// A frame of an Int64 column `x` and a Timestamp(µs, "UTC") column `t`, without stats.
fn frame() -> Vec<u8> {
    frame_of(
        &batch(vec![
            ("x", col(Int64Array::from(vec![1, 2, 3]))),
            (
                "t",
                col(TimestampMicrosecondArray::from(vec![1, 2, 3]).with_timezone("UTC")),
            ),
        ]),
        |o| o.stats = false,
    )
}

fn spots(frame: &[u8]) -> Spots {
    let base = 28 + 8; // the schema section, after the continuation marker and length
    let len = u32_at(frame, 28 + 4);
    let meta = &frame[base..base + len];
    let message = arrow_ipc::root_as_message(meta).expect("valid message");
    let schema = message.header_as_schema().expect("a schema");
    let fields = schema.fields().expect("fields");
    let (x, t) = (fields.get(0), fields.get(1));
    // Where a table's field is stored, and where a string offset there leads.
    let slot =
        |tab: &flatbuffers::Table, voffset: u16| tab.loc() + tab.vtable().get(voffset) as usize;
    let terminator = |at: usize| {
        let string = at + u32_at(meta, at);
        string + 4 + u32_at(meta, string)
    };
    let timestamp = t.type_as_timestamp().expect("timestamp");
    let schema_vtable = {
        let tab = &schema._tab;
        (tab.loc() as i64
            - i32::from_le_bytes(meta[tab.loc()..tab.loc() + 4].try_into().unwrap()) as i64)
            as usize
    };
    Spots {
        name_terminator: base + terminator(slot(&x._tab, Field::VT_NAME)),
        timezone_terminator: base + terminator(slot(&timestamp._tab, Timestamp::VT_TIMEZONE)),
        type_offset: base + slot(&t._tab, Field::VT_TYPE_),
        type_entry: base + {
            let tab = &x._tab;
            let vtable = tab.loc() as i64
                - i32::from_le_bytes(meta[tab.loc()..tab.loc() + 4].try_into().unwrap()) as i64;
            vtable as usize + Field::VT_TYPE_ as usize
        },
        schema_vtable: base + schema_vtable,
    }
}

fn edited(frame: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut b = frame.to_vec();
    edit(&mut b);
    reseal(b)
}

/// Cases of flatbuffer structure.
pub fn cases() -> Vec<RejectCase> {
    let f = frame();
    let s = spots(&f);
    vec![
        case(
            "schema_name_without_terminator",
            "a field name whose zero terminator is overwritten with 'x'",
            edited(&f, |b| b[s.name_terminator] = b'x'),
        ),
        case(
            "schema_timezone_without_terminator",
            "a timestamp's time zone whose zero terminator is overwritten with 'x' (a string the schema bounds walk does not read)",
            edited(&f, |b| b[s.timezone_terminator] = b'x'),
        ),
        case(
            "schema_type_offset_unaligned",
            "the offset from a field to its type table is 1 more: the table starts at an odd byte",
            edited(&f, |b| b[s.type_offset] = b[s.type_offset].wrapping_add(1)),
        ),
        case(
            "schema_type_without_value",
            "a field's vtable says it has no type table while its type id is present",
            edited(&f, |b| {
                b[s.type_entry] = 0;
                b[s.type_entry + 1] = 0;
            }),
        ),
        case(
            "schema_vtable_odd_length",
            "the schema table's vtable length is 1 more: odd, so the vtable's end is unaligned",
            edited(&f, |b| b[s.schema_vtable] += 1),
        ),
    ]
}
