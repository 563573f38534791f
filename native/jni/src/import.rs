//! Builds a record batch over buffers that live in the JVM, described by
//! address (Arrow Java's `VectorUnloader` output), without copying them.

use std::ptr::NonNull;
use std::sync::Arc;

use arrow_array::{make_array, RecordBatch};
use arrow_buffer::Buffer;
use arrow_schema::SchemaRef;

use tablecache_format::body::PartsReader;
use tablecache_format::raw_strings;
use tablecache_format::{Error, Result};

fn non_negative(v: i64, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::InvalidArgument(format!("negative {what} {v}")))
}

/// Imports a batch of `schema` from `nodes` (`[length, null_count]*`) and
/// `buffers` (`[address, size]*`), fully validated by arrow-rs, except that a top-level string
/// column whose bytes are not UTF-8 comes out as binary (`raw_strings`).
///
/// # Safety
/// Every `(address, size)` pair must describe readable memory that stays
/// valid and unmodified until the returned batch and everything derived from
/// it are dropped.
pub(crate) unsafe fn import_batch(
    schema: &SchemaRef,
    row_count: usize,
    nodes: &[i64],
    buffers: &[i64],
) -> Result<RecordBatch> {
    if !nodes.len().is_multiple_of(2) || !buffers.len().is_multiple_of(2) {
        return Err(Error::InvalidArgument(
            "nodes and buffers hold pairs".into(),
        ));
    }
    let nodes = nodes
        .chunks_exact(2)
        .map(|p| {
            Ok((
                non_negative(p[0], "node length")?,
                non_negative(p[1], "null count")?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let owner: Arc<()> = Arc::new(());
    let buffers = buffers
        .chunks_exact(2)
        .map(|p| {
            let size = non_negative(p[1], "buffer size")?;
            if size == 0 {
                return Ok(Buffer::from_vec(Vec::<u8>::new()));
            }
            let ptr = NonNull::new(p[0] as usize as *mut u8).ok_or_else(|| {
                Error::InvalidArgument(format!("null address for a {size}-byte buffer"))
            })?;
            // SAFETY: the caller guarantees the memory is valid for `size` bytes
            // for as long as the batch lives; `owner` frees nothing.
            Ok(unsafe { Buffer::from_custom_allocation(ptr, size, owner.clone()) })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut reader = PartsReader::new(nodes, buffers, "batch from the JVM".into());
    let columns = schema
        .fields()
        .iter()
        .map(|f| {
            // Strings (nested ones too) are read as bytes, then checked as UTF-8: Spark strings
            // need not be UTF-8, and a column holding such stays binary (raw_strings).
            let data = reader.read_array(&raw_strings::unchecked_type(f.data_type()))?;
            if data.len() != row_count {
                return Err(Error::SchemaMismatch(format!(
                    "column {:?} has {} rows, the batch {row_count}",
                    f.name(),
                    data.len()
                )));
            }
            Ok(raw_strings::utf8_or_binary(make_array(data), f.data_type()))
        })
        .collect::<Result<Vec<_>>>()?;
    reader.finish()?;
    raw_strings::batch_of(schema, columns, row_count)
}
