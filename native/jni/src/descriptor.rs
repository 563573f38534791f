//! Hands decoded columns to the JVM: a descriptor of buffer addresses plus
//! one handle per column that keeps its native memory alive until released.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_array::RecordBatch;
use arrow_data::ArrayData;
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

/// Builds the descriptor for every column of `batch` and registers one handle per column.
pub(crate) fn export_batch(batch: &RecordBatch) -> Result<Exported> {
    let mut descriptor = vec![to_i64(batch.num_rows())?, to_i64(batch.num_columns())?];
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in batch.schema_ref().fields().iter().zip(batch.columns()) {
        if layout::has_dictionary(field.data_type()) {
            return Err(Error::UnsupportedType(format!(
                "column {:?}: dictionary-encoded data cannot be handed to Arrow Java",
                field.name()
            )));
        }
        columns.push(normalized(&column.to_data())?);
    }
    let mut pending = Vec::with_capacity(columns.len());
    for data in &columns {
        let parts = BodyParts::collect(data)?;
        let mut entry = vec![
            0i64,
            to_i64(parts.nodes().len())?,
            to_i64(parts.buffers().len())?,
        ];
        for &(len, nulls) in parts.nodes() {
            entry.extend([i64::from(len), i64::from(nulls)]);
        }
        let mut bytes = 0;
        for b in parts.buffers() {
            let address = if b.is_empty() {
                0
            } else {
                b.as_ptr() as usize as i64
            };
            entry.extend([address, to_i64(b.len())?]);
            bytes += b.len();
        }
        pending.push((entry, bytes));
    }
    // Nothing below can fail: register the handles only now, so an error above leaks nothing.
    let mut handles = Vec::with_capacity(columns.len());
    let mut live = LIVE.lock();
    for (data, (mut entry, bytes)) in columns.into_iter().zip(pending) {
        let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        entry[0] = handle as i64;
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
