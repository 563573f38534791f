//! Hands decoded columns to a consumer of the Arrow C Data Interface: an engine's own copy of
//! Arrow Java (Apache DataFusion Comet's shaded one imports them with `Data.importVector`), so
//! its native operators read our decoded buffers without a copy. Each exported array owns
//! references to its buffers and frees them when the consumer calls its release callback.

use arrow_array::RecordBatch;
use arrow_data::ffi::FFI_ArrowArray;
use arrow_schema::ffi::FFI_ArrowSchema;

use tablecache_format::body::normalized;
use tablecache_format::{Error, Result};

/// The struct addresses, checked: non-null and aligned for the C structs.
fn struct_pointer<T>(address: i64, what: &str) -> Result<*mut T> {
    let ptr = address as usize as *mut T;
    if ptr.is_null() || !ptr.is_aligned() {
        return Err(Error::InvalidArgument(format!(
            "{what} address {address:#x} is null or misaligned"
        )));
    }
    Ok(ptr)
}

/// Writes released (empty) structs at every address, after checking them all, so that the
/// caller's structs hold nothing to release whatever happens next (an allocator need not zero
/// them: Arrow Java 12's does not).
///
/// # Safety
/// As [`export_columns`].
pub(crate) unsafe fn clear(arrays: &[i64], schemas: &[i64]) -> Result<()> {
    let arrays = arrays
        .iter()
        .map(|&a| struct_pointer::<FFI_ArrowArray>(a, "ArrowArray"))
        .collect::<Result<Vec<_>>>()?;
    let schemas = schemas
        .iter()
        .map(|&s| struct_pointer::<FFI_ArrowSchema>(s, "ArrowSchema"))
        .collect::<Result<Vec<_>>>()?;
    for a in arrays {
        // SAFETY: the caller guarantees a writable struct that holds nothing to release.
        unsafe { a.write(FFI_ArrowArray::empty()) };
    }
    for s in schemas {
        // SAFETY: as above.
        unsafe { s.write(FFI_ArrowSchema::empty()) };
    }
    Ok(())
}

/// Exports column `i` of `batch` into `arrays[i]` and `schemas[i]`. Nothing is written unless
/// every column exports, so an error leaves the consumer's structs untouched.
///
/// # Safety
/// Every address must point to memory that is valid for writes of an `ArrowArray` (or
/// `ArrowSchema`) C struct, holds no live struct that still needs releasing, and is not read or
/// written by anyone else during the call.
pub(crate) unsafe fn export_columns(
    batch: &RecordBatch,
    arrays: &[i64],
    schemas: &[i64],
) -> Result<()> {
    let n = batch.num_columns();
    if arrays.len() != n || schemas.len() != n {
        return Err(Error::InvalidArgument(format!(
            "{} array and {} schema structs for {n} columns",
            arrays.len(),
            schemas.len()
        )));
    }
    let mut exported = Vec::with_capacity(n);
    for (i, (field, column)) in batch
        .schema_ref()
        .fields()
        .iter()
        .zip(batch.columns())
        .enumerate()
    {
        let array_ptr = struct_pointer::<FFI_ArrowArray>(arrays[i], "ArrowArray")?;
        let schema_ptr = struct_pointer::<FFI_ArrowSchema>(schemas[i], "ArrowSchema")?;
        let schema = FFI_ArrowSchema::try_from(field.as_ref())
            .map_err(|e| Error::UnsupportedType(format!("column {:?}: {e}", field.name())))?;
        let data = normalized(&column.to_data())?;
        exported.push((array_ptr, FFI_ArrowArray::new(&data), schema_ptr, schema));
    }
    for (array_ptr, array, schema_ptr, schema) in exported {
        // SAFETY: the caller guarantees both addresses are writable C structs that hold nothing
        // to release; the moved structs' release callbacks now belong to the consumer.
        unsafe {
            array_ptr.write(array);
            schema_ptr.write(schema);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::ffi::from_ffi;
    use arrow_array::{
        Array, ArrayRef, Decimal128Array, Float64Array, Int64Array, StringArray,
        TimestampMicrosecondArray,
    };
    use arrow_schema::{Field, Schema};

    use super::*;

    fn batch() -> RecordBatch {
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(vec![Some(1), None, Some(-3)])),
            Arc::new(Float64Array::from(vec![Some(f64::NAN), Some(-0.0), None])),
            Arc::new(StringArray::from(vec![Some("ünï"), None, Some("")])),
            Arc::new(
                Decimal128Array::from(vec![Some(12345), None, Some(-1)])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
            Arc::new(
                TimestampMicrosecondArray::from(vec![Some(0), Some(-1), None]).with_timezone("UTC"),
            ),
        ];
        let fields: Vec<Field> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| Field::new(format!("c{i}"), c.data_type().clone(), true))
            .collect();
        RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
    }

    /// `n` empty struct pairs and their addresses (the structs must outlive every use of them).
    fn structs(
        n: usize,
    ) -> (
        Vec<FFI_ArrowArray>,
        Vec<FFI_ArrowSchema>,
        Vec<i64>,
        Vec<i64>,
    ) {
        let mut arrays: Vec<FFI_ArrowArray> = (0..n).map(|_| FFI_ArrowArray::empty()).collect();
        let mut schemas: Vec<FFI_ArrowSchema> = (0..n).map(|_| FFI_ArrowSchema::empty()).collect();
        let array_ptrs = arrays
            .iter_mut()
            .map(|a| a as *mut _ as usize as i64)
            .collect();
        let schema_ptrs = schemas
            .iter_mut()
            .map(|s| s as *mut _ as usize as i64)
            .collect();
        (arrays, schemas, array_ptrs, schema_ptrs)
    }

    #[test]
    fn exported_columns_import_to_the_same_arrays() {
        let batch = batch();
        // A sliced batch: the export must not leak the slice offset as wrong rows.
        let sliced = batch.slice(1, 2);
        for b in [&batch, &sliced] {
            let (arrays, schemas, array_ptrs, schema_ptrs) = structs(b.num_columns());
            // SAFETY: the structs are live, writable, empty (nothing to release) and only this
            // thread touches them.
            unsafe { export_columns(b, &array_ptrs, &schema_ptrs) }.unwrap();
            for (i, (array, schema)) in arrays.into_iter().zip(schemas.iter()).enumerate() {
                // SAFETY: export_columns filled both structs; from_ffi takes the array over.
                let data = unsafe { from_ffi(array, schema) }.unwrap();
                assert_eq!(data, b.column(i).to_data(), "column {i}");
                assert_eq!(schema.name(), Some(b.schema().field(i).name().as_str()));
            }
        }
    }

    #[test]
    fn bad_struct_addresses_are_errors_and_write_nothing() {
        let batch = batch();
        let n = batch.num_columns();
        let (arrays, _schemas, mut array_ptrs, schema_ptrs) = structs(n);
        let last = n - 1;
        for bad in [0i64, array_ptrs[last] + 1] {
            array_ptrs[last] = bad;
            // SAFETY: as above; the bad address must be rejected before anything is written.
            let err = unsafe { export_columns(&batch, &array_ptrs, &schema_ptrs) }.unwrap_err();
            assert!(err.to_string().contains("ArrowArray address"), "{err}");
            assert!(arrays.iter().all(|a| a.is_released()), "nothing written");
        }
        // SAFETY: as above.
        let err = unsafe { export_columns(&batch, &array_ptrs[..1], &schema_ptrs) }.unwrap_err();
        assert!(err.to_string().contains("for 5 columns"), "{err}");
    }
}
