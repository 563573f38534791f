//! Hands decoded columns to the JVM: a descriptor of buffer addresses plus
//! one handle per column that keeps its native memory alive until released.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::cast::AsArray;
use arrow_array::types::Int32Type;
use arrow_array::{make_array, Array, RecordBatch};
use arrow_data::ArrayData;
use arrow_schema::DataType;
use once_cell::sync::Lazy;
use parking_lot::Mutex;

use tablecache_format::body::{normalized, BodyParts};
use tablecache_format::layout;
use tablecache_format::{Error, Result};

struct LiveColumn {
    _data: ArrayData,
    bytes: usize,
}

/// Live columns by handle. Handles are ids, not pointers, so a stale or
/// forged handle from Java is an error instead of a double free.
static LIVE: Lazy<Mutex<HashMap<u64, LiveColumn>>> = Lazy::new(|| Mutex::new(HashMap::new()));
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);

/// A descriptor (docs/ARCHITECTURE.md) and the handles it registered.
pub(crate) struct Exported {
    pub(crate) descriptor: Vec<i64>,
    handles: Vec<u64>,
}

impl Exported {
    /// Releases every handle (used when the descriptor never reaches Java).
    pub(crate) fn release_all(&self) {
        let mut live = LIVE.lock();
        for h in &self.handles {
            live.remove(h);
        }
    }
}

fn to_i64(v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::Internal(format!("{v} does not fit a Java long")))
}

/// How a column lies in its descriptor entry: the `kind` word after its handle.
#[derive(Clone, Copy)]
enum ColumnKind {
    /// Arrow's own buffers for the column's type, in IPC order.
    Plain = 0,
    /// A string or binary column as a dictionary: one node (the values), then four buffers:
    /// validity, one `i32` key per value, the entries' `i32` offsets, the entries' bytes.
    DictionaryStrings = 1,
}

/// A column's descriptor entry after its handle: kind, counts, nodes and buffers.
fn entry_of(data: &ArrayData, kind: ColumnKind) -> Result<(Vec<i64>, usize)> {
    let (nodes, buffers) = match kind {
        ColumnKind::Plain => {
            let parts = BodyParts::collect(data)?;
            (parts.nodes().to_vec(), buffer_slices(&parts))
        }
        ColumnKind::DictionaryStrings => {
            let dictionary = make_array(data.clone());
            let dictionary = dictionary
                .as_dictionary_opt::<Int32Type>()
                .ok_or_else(|| Error::Internal("a dictionary without Int32 keys".into()))?;
            let (keys, entries) = (dictionary.keys().to_data(), dictionary.values().to_data());
            let keys = BodyParts::collect(&keys)?;
            let values = BodyParts::collect(&entries)?;
            // The entries have no nulls: their validity (values' buffer 0) is left out.
            let mut buffers = buffer_slices(&keys);
            buffers.extend(buffer_slices(&values).into_iter().skip(1));
            (keys.nodes().to_vec(), buffers)
        }
    };
    let mut entry = vec![kind as i64, to_i64(nodes.len())?, to_i64(buffers.len())?];
    for (len, nulls) in nodes {
        entry.extend([i64::from(len), i64::from(nulls)]);
    }
    let mut bytes = 0;
    for (address, len) in buffers {
        entry.extend([address, to_i64(len)?]);
        bytes += len;
    }
    Ok((entry, bytes))
}

/// `(address, size)` of each buffer, address 0 for an empty one.
fn buffer_slices(parts: &BodyParts<'_>) -> Vec<(i64, usize)> {
    parts
        .buffers()
        .iter()
        .map(|b| {
            let address = if b.is_empty() {
                0
            } else {
                b.as_ptr() as usize as i64
            };
            (address, b.len())
        })
        .collect()
}

/// The kind of a decoded column: a dictionary only where the caller asked for string
/// dictionaries (`ReadOptions::dictionary_strings`: `Int32` keys over `Utf8` or `Binary`
/// entries); any other dictionary is refused, as Arrow Java's import cannot take it.
fn kind_of(field: &arrow_schema::Field, dictionary_strings: bool) -> Result<ColumnKind> {
    match field.data_type() {
        DataType::Dictionary(key, values)
            if dictionary_strings
                && key.as_ref() == &DataType::Int32
                && matches!(values.as_ref(), DataType::Utf8 | DataType::Binary) =>
        {
            Ok(ColumnKind::DictionaryStrings)
        }
        t if layout::has_dictionary(t) => Err(Error::UnsupportedType(format!(
            "column {:?}: dictionary-encoded data cannot be handed to Arrow Java",
            field.name()
        ))),
        _ => Ok(ColumnKind::Plain),
    }
}

/// Builds the descriptor for every column of `batch` and registers one handle per column;
/// `dictionary_strings`: as the batch was decoded (`ReadOptions`).
pub(crate) fn export_batch(batch: &RecordBatch, dictionary_strings: bool) -> Result<Exported> {
    let mut descriptor = vec![to_i64(batch.num_rows())?, to_i64(batch.num_columns())?];
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema_ref().fields().iter().zip(batch.columns()) {
        let kind = kind_of(field, dictionary_strings)?;
        let data = match kind {
            ColumnKind::Plain => normalized(&column.to_data())?,
            // The reader built it: unsliced, its buffers exactly its values'.
            ColumnKind::DictionaryStrings => column.to_data(),
        };
        columns.push((data, kind));
    }
    let mut pending = Vec::with_capacity(columns.len());
    for (data, kind) in &columns {
        pending.push(entry_of(data, *kind)?);
    }
    // Nothing below can fail: register the handles only now, so an error above leaks nothing.
    let mut handles = Vec::with_capacity(columns.len());
    let mut live = LIVE.lock();
    for ((data, _), (entry, bytes)) in columns.into_iter().zip(pending) {
        let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        descriptor.push(handle as i64);
        descriptor.extend(entry);
        live.insert(handle, LiveColumn { _data: data, bytes });
        handles.push(handle);
    }
    Ok(Exported {
        descriptor,
        handles,
    })
}

/// Frees the column behind `handle`.
pub(crate) fn release(handle: i64) -> Result<()> {
    let removed = LIVE.lock().remove(&(handle as u64));
    match removed {
        Some(column) => {
            drop(column);
            Ok(())
        }
        None => Err(Error::InvalidArgument(format!(
            "unknown or already released handle {handle}"
        ))),
    }
}

/// `(live handles, bytes they hold)`.
pub(crate) fn live() -> (i64, i64) {
    let live = LIVE.lock();
    let bytes: usize = live.values().map(|c| c.bytes).sum();
    (live.len() as i64, bytes as i64)
}
