//! Bounds on an embedded schema, checked on the raw flatbuffer before anything expands it
//! (FORMAT.md §2, "Schema bounds").
//!
//! A flatbuffer can reuse one child table many times (a DAG that expands exponentially), nest
//! tables thousands deep, or name a type the format never carries. arrow-ipc's conversion
//! recurses and allocates per expanded field, so this walk runs first: it reads the bytes
//! itself, every offset bounds-checked, recurses at most [`MAX_DEPTH`] levels and stops at the
//! first limit it passes, so it can neither overflow the stack nor allocate by a claimed count.
//! The Java shim's `dev.tablecache.format.SchemaBounds` applies the same limits.

use crate::error::{Error, Result};

/// Deepest field nesting a schema may have (a top-level field has depth 1). arrow-ipc's
/// flatbuffer verifier allows 64 nested tables and a field at depth `d` sits under up to
/// `d + 4` of them (message, schema, the fields, a dictionary encoding and its index type), so
/// 60 is the deepest schema every native read path decodes; Spark schemas stay far below it.
pub const MAX_DEPTH: usize = 60;
/// Most fields a schema may have in total, counted as expanded: every use of a shared child
/// table counts. Far above any Spark table (Spark's code generation struggles past a few
/// thousand columns), far below what exhausts a heap.
pub const MAX_FIELDS: usize = 100_000;
/// Most children one field (or the schema itself, for its top-level fields) may have.
pub const MAX_CHILDREN: usize = 65_536;
/// Longest field name, custom-metadata key or custom-metadata value, in bytes.
pub const MAX_NAME_BYTES: usize = 65_536;
/// Most custom-metadata entries (schema and fields together, expanded).
pub const MAX_METADATA_ENTRIES: usize = 65_536;
/// Most bytes of names, metadata keys and values in total, expanded: both Arrow libraries
/// copy every string once per use.
pub const MAX_STRING_BYTES: usize = 16 << 20;

// Arrow `Type` union ids (Schema.fbs) and the slots of the tables this walk reads.
const TYPE_STRUCT: u8 = 13;
const TYPE_LIST: u8 = 12;
const TYPE_FIXED_SIZE_LIST: u8 = 16;
const TYPE_MAP: u8 = 17;
const TYPE_LARGE_LIST: u8 = 21;
const MESSAGE_HEADER_TYPE: usize = 1;
const MESSAGE_HEADER: usize = 2;
const HEADER_SCHEMA: u8 = 1;
const SCHEMA_FIELDS: usize = 1;
const SCHEMA_METADATA: usize = 2;
const FIELD_NAME: usize = 0;
const FIELD_TYPE_TYPE: usize = 2;
const FIELD_CHILDREN: usize = 5;
const FIELD_METADATA: usize = 6;

/// The Arrow type name of a `Type` union id, or `None` for an id the format does not carry
/// (NONE, Union, the view and run-end types, and ids newer than this reader).
fn supported_type(id: u8) -> Option<&'static str> {
    Some(match id {
        1 => "Null",
        2 => "Int",
        3 => "FloatingPoint",
        4 => "Binary",
        5 => "Utf8",
        6 => "Bool",
        7 => "Decimal",
        8 => "Date",
        9 => "Time",
        10 => "Timestamp",
        11 => "Interval",
        12 => "List",
        13 => "Struct",
        15 => "FixedSizeBinary",
        16 => "FixedSizeList",
        17 => "Map",
        18 => "Duration",
        19 => "LargeBinary",
        20 => "LargeUtf8",
        21 => "LargeList",
        _ => return None,
    })
}

/// Checks an encapsulated IPC schema message (`FF FF FF FF`, `i32` length, the `Message`
/// flatbuffer; the pre-1.0 form without the marker too, as arrow-ipc accepts it).
pub fn check_schema_message(bytes: &[u8]) -> Result<()> {
    let rest = match bytes {
        [0xFF, 0xFF, 0xFF, 0xFF, rest @ ..] => rest,
        _ => bytes,
    };
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or_else(|| bad("the schema message is shorter than its length prefix".into()))?;
    let len = usize::try_from(i32::from_le_bytes(*len))
        .map_err(|_| bad("the schema message length is negative".into()))?;
    let message = rest.get(..len).ok_or_else(|| {
        bad(format!(
            "the {len}-byte schema message runs past its section"
        ))
    })?;
    check_message(message)
}

/// Checks the `Message` flatbuffer `message` if its header is a schema; other messages pass.
pub fn check_message(message: &[u8]) -> Result<()> {
    let fb = Flatbuffer { buf: message };
    let root = fb.table(fb.u32(0)? as usize)?;
    if fb.scalar_u8(&root, MESSAGE_HEADER_TYPE)? != HEADER_SCHEMA {
        return Ok(());
    }
    let schema = fb
        .child_table(&root, MESSAGE_HEADER)?
        .ok_or_else(|| bad("the schema message has no schema".into()))?;
    let mut walk = Walk {
        fb,
        fields: 0,
        metadata: 0,
        string_bytes: 0,
        path: Vec::new(),
    };
    walk.metadata(fb.vector(&schema, SCHEMA_METADATA)?)?;
    walk.fields(fb.vector(&schema, SCHEMA_FIELDS)?, 1)
}

fn bad(message: String) -> Error {
    Error::InvalidSchema(format!("schema: {message}"))
}

/// A table: its position and its vtable's.
struct Table {
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

/// A vector: the position of its first element and its length.
struct Vector {
    start: usize,
    len: usize,
}

/// Bounds-checked flatbuffer reads: every position is checked against the buffer.
#[derive(Clone, Copy)]
struct Flatbuffer<'a> {
    buf: &'a [u8],
}

impl<'a> Flatbuffer<'a> {
    fn bytes<const N: usize>(&self, pos: usize) -> Result<[u8; N]> {
        pos.checked_add(N)
            .and_then(|end| self.buf.get(pos..end))
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| {
                bad(format!(
                    "flatbuffer read of {N} bytes at {pos} is out of bounds"
                ))
            })
    }

    fn u32(&self, pos: usize) -> Result<u32> {
        self.bytes(pos).map(u32::from_le_bytes)
    }

    fn u16(&self, pos: usize) -> Result<u16> {
        self.bytes(pos).map(u16::from_le_bytes)
    }

    fn table(&self, pos: usize) -> Result<Table> {
        let soffset = i64::from(i32::from_le_bytes(self.bytes(pos)?));
        let vtable = usize::try_from(pos as i64 - soffset)
            .map_err(|_| bad(format!("the vtable of the table at {pos} is out of bounds")))?;
        let vtable_len = usize::from(self.u16(vtable)?);
        if vtable_len < 4 || vtable.saturating_add(vtable_len) > self.buf.len() {
            return Err(bad(format!("the vtable at {vtable} is malformed")));
        }
        Ok(Table {
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Where field `slot` of `table` is stored, or `None` when it is absent (default).
    fn slot(&self, table: &Table, slot: usize) -> Result<Option<usize>> {
        let entry = 4 + 2 * slot;
        if entry + 2 > table.vtable_len {
            return Ok(None);
        }
        match self.u16(table.vtable + entry)? {
            0 => Ok(None),
            voffset => Ok(Some(table.pos + usize::from(voffset))),
        }
    }

    fn scalar_u8(&self, table: &Table, slot: usize) -> Result<u8> {
        match self.slot(table, slot)? {
            Some(pos) => self.bytes::<1>(pos).map(|b| b[0]),
            None => Ok(0),
        }
    }

    /// Follows the offset stored at `pos` (relative to `pos`).
    fn follow(&self, pos: usize) -> Result<usize> {
        let target = pos.saturating_add(self.u32(pos)? as usize);
        if target >= self.buf.len() {
            return Err(bad(format!(
                "the flatbuffer offset at {pos} points past the end"
            )));
        }
        Ok(target)
    }

    fn child_table(&self, table: &Table, slot: usize) -> Result<Option<Table>> {
        match self.slot(table, slot)? {
            Some(pos) => Ok(Some(self.table(self.follow(pos)?)?)),
            None => Ok(None),
        }
    }

    /// A vector of offsets; its claimed length is checked against the bytes present.
    fn vector(&self, table: &Table, slot: usize) -> Result<Option<Vector>> {
        let Some(pos) = self.slot(table, slot)? else {
            return Ok(None);
        };
        let at = self.follow(pos)?;
        let len = self.u32(at)? as usize;
        let start = at + 4;
        if len > (self.buf.len() - start.min(self.buf.len())) / 4 {
            return Err(bad(format!(
                "a vector of {len} offsets at {at} runs past the end"
            )));
        }
        Ok(Some(Vector { start, len }))
    }

    fn element(&self, vector: &Vector, i: usize) -> Result<Table> {
        self.table(self.follow(vector.start + 4 * i)?)
    }

    fn string(&self, table: &Table, slot: usize) -> Result<Option<&'a [u8]>> {
        let Some(pos) = self.slot(table, slot)? else {
            return Ok(None);
        };
        let at = self.follow(pos)?;
        let len = self.u32(at)? as usize;
        let start = at + 4;
        start
            .checked_add(len)
            .and_then(|end| self.buf.get(start..end))
            .map(Some)
            .ok_or_else(|| bad(format!("a string of {len} bytes at {at} runs past the end")))
    }
}

/// The walk's running totals and the path to the field being visited.
struct Walk<'a> {
    fb: Flatbuffer<'a>,
    fields: usize,
    metadata: usize,
    string_bytes: usize,
    path: Vec<&'a [u8]>,
}

impl<'a> Walk<'a> {
    fn path(&self) -> String {
        if self.path.is_empty() {
            return "the schema's top level".into();
        }
        let names: Vec<_> = self
            .path
            .iter()
            .map(|n| crate::names::quoted_bytes(n))
            .collect();
        names.join(".")
    }

    fn fail(&self, what: String) -> Error {
        bad(format!("{what} at {}", self.path()))
    }

    fn fields(&mut self, vector: Option<Vector>, depth: usize) -> Result<()> {
        let Some(vector) = vector else {
            return Ok(());
        };
        if vector.len > MAX_CHILDREN {
            return Err(self.fail(format!(
                "{} children, more than {MAX_CHILDREN},",
                vector.len
            )));
        }
        for i in 0..vector.len {
            let field = self.fb.element(&vector, i)?;
            self.field(&field, depth)?;
        }
        Ok(())
    }

    fn field(&mut self, field: &Table, depth: usize) -> Result<()> {
        let name = self.fb.string(field, FIELD_NAME)?.unwrap_or_default();
        self.path.push(name);
        self.fields += 1;
        if self.fields > MAX_FIELDS {
            return Err(self.fail(format!(
                "more than {MAX_FIELDS} fields (every use of a shared field counts)"
            )));
        }
        if depth > MAX_DEPTH {
            return Err(self.fail(format!("nesting deeper than {MAX_DEPTH}")));
        }
        self.string(name, "field name")?;
        let type_id = self.fb.scalar_u8(field, FIELD_TYPE_TYPE)?;
        let type_name = supported_type(type_id).ok_or_else(|| {
            self.fail(format!(
                "type id {type_id}, which the format does not carry,"
            ))
        })?;
        self.metadata(self.fb.vector(field, FIELD_METADATA)?)?;
        let children = self.fb.vector(field, FIELD_CHILDREN)?;
        let count = children.as_ref().map_or(0, |c| c.len);
        let expected = match type_id {
            TYPE_STRUCT => count,
            TYPE_LIST | TYPE_LARGE_LIST | TYPE_FIXED_SIZE_LIST | TYPE_MAP => 1,
            _ => 0,
        };
        if count != expected {
            return Err(self.fail(format!(
                "a {type_name} field with {count} children (it has {expected})"
            )));
        }
        self.fields(children, depth + 1)?;
        self.path.pop();
        Ok(())
    }

    fn metadata(&mut self, entries: Option<Vector>) -> Result<()> {
        let Some(entries) = entries else {
            return Ok(());
        };
        self.metadata = self.metadata.saturating_add(entries.len);
        if self.metadata > MAX_METADATA_ENTRIES {
            return Err(self.fail(format!(
                "more than {MAX_METADATA_ENTRIES} custom-metadata entries"
            )));
        }
        for i in 0..entries.len {
            let entry = self.fb.element(&entries, i)?;
            for (slot, what) in [(0, "metadata key"), (1, "metadata value")] {
                let s = self.fb.string(&entry, slot)?.unwrap_or_default();
                self.string(s, what)?;
            }
        }
        Ok(())
    }

    /// Counts a name, key or value against the length and total limits; it must be UTF-8.
    fn string(&mut self, s: &[u8], what: &str) -> Result<()> {
        if s.len() > MAX_NAME_BYTES {
            return Err(self.fail(format!(
                "a {what} of {} bytes, longer than {MAX_NAME_BYTES},",
                s.len()
            )));
        }
        self.string_bytes += s.len();
        if self.string_bytes > MAX_STRING_BYTES {
            return Err(self.fail(format!(
                "more than {MAX_STRING_BYTES} bytes of names and metadata"
            )));
        }
        if std::str::from_utf8(s).is_err() {
            return Err(self.fail(format!("a {what} that is not UTF-8")));
        }
        Ok(())
    }
}
