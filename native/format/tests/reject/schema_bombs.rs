//! Schema bombs: embedded schemas whose flatbuffer expands past the schema bounds
//! (FORMAT.md §2, "Schema bounds"; `tablecache_format::schema_bounds`), or names a type the
//! format does not carry. Framed cases keep valid checksums, so the reader reaches the schema.

use std::sync::Arc;

use arrow_array::{ArrayRef, Decimal128Array, Int32Array, RecordBatch};
use arrow_ipc::gen::Message::{MessageArgs, MessageHeader};
use arrow_ipc::gen::Schema::{
    Field, FieldArgs, FieldBuilder, IntBuilder, MetadataVersion, SchemaBuilder, Struct_Builder,
    Type,
};
use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};
use tablecache_format::schema_bounds::{MAX_DEPTH, MAX_NAME_BYTES};
use tablecache_format::{write, Format, WriteOptions};

use super::{RejectCase, Section};

/// Builds one schema flatbuffer and wraps it as an encapsulated IPC schema message.
pub struct SchemaMessage<'a> {
    fbb: FlatBufferBuilder<'a>,
    // One Struct_ type table for every struct field: keeps the deep chain small.
    struct_type: Option<WIPOffset<flatbuffers::UnionWIPOffset>>,
}

impl Default for SchemaMessage<'_> {
    fn default() -> Self {
        SchemaMessage {
            fbb: FlatBufferBuilder::with_capacity(1024),
            struct_type: None,
        }
    }
}

type Children<'a> = WIPOffset<Vector<'a, ForwardsUOffset<Field<'a>>>>;

impl<'a> SchemaMessage<'a> {
    /// A nullable `Int32` leaf named `name`.
    pub fn int_leaf(&mut self, name: &str) -> WIPOffset<Field<'a>> {
        let mut int = IntBuilder::new(&mut self.fbb);
        int.add_bitWidth(32);
        int.add_is_signed(true);
        let int = int.finish().as_union_value();
        let name = self.fbb.create_string(name);
        let mut f = FieldBuilder::new(&mut self.fbb);
        f.add_name(name);
        f.add_nullable(true);
        f.add_type_type(Type::Int);
        f.add_type_(int);
        f.finish()
    }

    /// A struct field over `children` (the same offset may appear many times: a DAG).
    pub fn struct_of(
        &mut self,
        name: &str,
        children: &[WIPOffset<Field<'a>>],
    ) -> WIPOffset<Field<'a>> {
        let children: Children<'a> = self.fbb.create_vector(children);
        let ty = match self.struct_type {
            Some(ty) => ty,
            None => Struct_Builder::new(&mut self.fbb).finish().as_union_value(),
        };
        self.struct_type = Some(ty);
        let name = self.fbb.create_shared_string(name);
        Field::create(
            &mut self.fbb,
            &FieldArgs {
                name: Some(name),
                nullable: true,
                type_type: Type::Struct_,
                type_: Some(ty),
                children: Some(children),
                ..Default::default()
            },
        )
    }

    /// The whole encapsulated message with `fields` at the top level.
    pub fn finish(mut self, fields: &[WIPOffset<Field<'a>>]) -> Vec<u8> {
        let fields = self.fbb.create_vector(fields);
        let mut schema = SchemaBuilder::new(&mut self.fbb);
        schema.add_fields(fields);
        let schema = schema.finish();
        let message = arrow_ipc::gen::Message::Message::create(
            &mut self.fbb,
            &MessageArgs {
                version: MetadataVersion::V5,
                header_type: MessageHeader::Schema,
                header: Some(schema.as_union_value()),
                bodyLength: 0,
                custom_metadata: None,
            },
        );
        self.fbb.finish(message, None);
        encapsulate(self.fbb.finished_data())
    }
}

/// `FF FF FF FF`, the padded length, the flatbuffer, zero padding to a multiple of 8.
fn encapsulate(flatbuffer: &[u8]) -> Vec<u8> {
    let padded = flatbuffer.len().div_ceil(8) * 8;
    let mut out = vec![0xFF; 4];
    out.extend_from_slice(&(padded as i32).to_le_bytes());
    out.extend_from_slice(flatbuffer);
    out.resize(8 + padded, 0);
    out
}

/// The 40^8 DAG: each of 8 struct levels lists one child table 40 times.
pub fn dag_schema() -> Vec<u8> {
    let mut m = SchemaMessage::default();
    let mut level = m.int_leaf("x");
    for _ in 0..8 {
        level = m.struct_of("s", &[level; 40]);
    }
    m.finish(&[level])
}

/// A chain of structs `depth` fields deep (the top-level field has depth 1) ending in an int.
pub fn chain_schema(depth: usize) -> Vec<u8> {
    let mut m = SchemaMessage::default();
    let mut field = m.int_leaf("leaf");
    for _ in 1..depth {
        field = m.struct_of("c", &[field]);
    }
    m.finish(&[field])
}

fn one_int_column() -> RecordBatch {
    let col: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None, Some(3)]));
    RecordBatch::try_from_iter([("a", col)]).expect("batch")
}

fn decimal_column() -> RecordBatch {
    let col = Decimal128Array::from(vec![Some(12345), None])
        .with_precision_and_scale(10, 2)
        .expect("decimal");
    RecordBatch::try_from_iter([("d", Arc::new(col) as ArrayRef)]).expect("batch")
}

fn written(batch: &RecordBatch, format: Format) -> Vec<u8> {
    let options = WriteOptions {
        format,
        ..Default::default()
    };
    write(batch, &options).expect("write")
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// Recomputes a V3 frame's metadata checksum (FORMAT.md §2, "Checksums").
pub fn reseal(b: &mut [u8]) {
    let entries = if b[4] == 3 { u32_at(b, 12) } else { 1 };
    let payload_start = 28 + u32_at(b, 16) + u32_at(b, 20) + 20 * entries;
    let crc = crc32c::crc32c_append(crc32c::crc32c(&b[..24]), &b[28..payload_start]);
    b[24..28].copy_from_slice(&crc.to_le_bytes());
}

/// A valid one-column V3 frame with its schema section replaced by `schema`, resealed.
pub fn v3_with_schema(schema: &[u8]) -> Vec<u8> {
    let frame = written(&one_int_column(), Format::V3);
    let old_len = u32_at(&frame, 16);
    let mut out = frame[..28].to_vec();
    out[16..20].copy_from_slice(&(schema.len() as u32).to_le_bytes());
    out.extend_from_slice(schema);
    out.extend_from_slice(&frame[28 + old_len..]);
    reseal(&mut out);
    out
}

/// A valid one-column legacy stream with its schema message replaced by `schema`.
pub fn legacy_with_schema(schema: &[u8]) -> Vec<u8> {
    let stream = written(&one_int_column(), Format::Legacy);
    let old_len = 8 + u32_at(&stream, 4);
    let mut out = schema.to_vec();
    out.extend_from_slice(&stream[old_len..]);
    out
}

/// The one byte of `schema_message` (at `start` in `bytes`) that is the first field's type id,
/// set from Decimal (7) to Union (14).
fn decimal_to_union(bytes: &mut [u8], start: usize) {
    let meta_len = u32_at(bytes, start + 4);
    let meta = start + 8..start + 8 + meta_len;
    let message = arrow_ipc::root_as_message(&bytes[meta.clone()]).expect("schema message");
    let field = message
        .header_as_schema()
        .and_then(|s| s.fields())
        .expect("fields")
        .get(0);
    assert_eq!(field.type_type(), Type::Decimal);
    let type_id_at =
        meta.start + field._tab.loc() + field._tab.vtable().get(Field::VT_TYPE_TYPE) as usize;
    bytes[type_id_at] = Type::Union.0;
}

/// The corpus cases.
pub fn cases() -> Vec<RejectCase> {
    let mut v3_union = written(&decimal_column(), Format::V3);
    decimal_to_union(&mut v3_union, 28);
    reseal(&mut v3_union);
    let mut legacy_union = written(&decimal_column(), Format::Legacy);
    decimal_to_union(&mut legacy_union, 0);
    let long_name = {
        let mut m = SchemaMessage::default();
        let leaf = m.int_leaf(&"n".repeat(MAX_NAME_BYTES + 1));
        m.finish(&[leaf])
    };
    vec![
        RejectCase {
            name: "schema_dag_40_pow_8",
            kind: "CORRUPT_FRAME",
            section: Section::Schema,
            what: "a frame under 2 KB whose schema's 8 struct levels each list one child table 40 times, 40^8 fields once expanded",
            bytes: v3_with_schema(&dag_schema()),
        },
        RejectCase {
            name: "schema_deep_chain_20000",
            kind: "CORRUPT_FRAME",
            section: Section::Schema,
            what: "a struct chain 20000 fields deep, far past the nesting limit",
            bytes: v3_with_schema(&chain_schema(20_000)),
        },
        RejectCase {
            name: "schema_chain_one_past_depth_limit",
            kind: "CORRUPT_FRAME",
            section: Section::Schema,
            what: "a struct chain one field deeper than the nesting limit",
            bytes: v3_with_schema(&chain_schema(MAX_DEPTH + 1)),
        },
        RejectCase {
            name: "schema_decimal_mutated_to_union",
            kind: "CORRUPT_FRAME",
            section: Section::Schema,
            what: "a decimal column's type id byte changed to Union, checksum re-forged",
            bytes: v3_union,
        },
        RejectCase {
            name: "schema_name_past_limit",
            kind: "CORRUPT_FRAME",
            section: Section::Schema,
            what: "a field name one byte longer than the name limit",
            bytes: v3_with_schema(&long_name),
        },
        RejectCase {
            name: "legacy_schema_dag_40_pow_8",
            kind: "CORRUPT_FRAME",
            section: Section::Legacy,
            what: "a legacy stream whose schema message is the 40^8 DAG",
            bytes: legacy_with_schema(&dag_schema()),
        },
        RejectCase {
            name: "legacy_decimal_mutated_to_union",
            kind: "CORRUPT_FRAME",
            section: Section::Legacy,
            what: "a legacy stream with one flipped byte: a decimal column's type id changed to Union",
            bytes: legacy_union,
        },
    ]
}
