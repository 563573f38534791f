//! Spark strings that are not UTF-8.
//!
//! Spark's `UTF8String` does not check its bytes: `CAST(binary AS STRING)`, or a CSV or text file
//! in Latin-1, gives string values that are not UTF-8, and Spark computes on them byte by byte.
//! Arrow's `Utf8` must be UTF-8, so a writer keeps a top-level string column whose bytes in a
//! batch are not UTF-8 as `Binary` (`LargeUtf8` as `LargeBinary`): same layout, same bytes. That
//! frame's schema then says `Binary` for the column; readers serve it back under the table's
//! string type, and the column has no stats bounds in that frame (so no pruning by it).

use std::sync::Arc;

use arrow_array::{
    cast::AsArray, Array, ArrayRef, GenericStringArray, OffsetSizeTrait, RecordBatch,
    RecordBatchOptions,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use crate::{Error, Result};

/// The type a top-level column of `data_type` is read as before its UTF-8 check: `Binary` for
/// `Utf8`, `LargeBinary` for `LargeUtf8`, the type itself otherwise.
pub fn unchecked_type(data_type: &DataType) -> DataType {
    match data_type {
        DataType::Utf8 => DataType::Binary,
        DataType::LargeUtf8 => DataType::LargeBinary,
        other => other.clone(),
    }
}

/// The column of a field of `data_type` from `array`, read as [`unchecked_type`]: for a string
/// field, a string array when its bytes are UTF-8 (one pass over them, plus a char boundary per
/// offset), else the binary array unchanged; for any other field, `array` itself.
pub fn utf8_or_binary(array: ArrayRef, data_type: &DataType) -> ArrayRef {
    match (data_type, array.data_type()) {
        (DataType::Utf8, DataType::Binary) => as_string::<i32>(array),
        (DataType::LargeUtf8, DataType::LargeBinary) => as_string::<i64>(array),
        _ => array,
    }
}

fn as_string<O: OffsetSizeTrait>(array: ArrayRef) -> ArrayRef {
    // Cloning shares the buffers (reference counts), so a failed check copies nothing.
    let binary = array.as_binary::<O>().clone();
    match GenericStringArray::<O>::try_from_binary(binary) {
        Ok(strings) => Arc::new(strings),
        Err(_not_utf8) => array,
    }
}

/// A batch of `columns` under `schema`, except that a string field whose column came out as
/// binary ([`utf8_or_binary`]) is a binary field in the batch's schema.
pub fn batch_of(schema: &SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let stored_as_binary = |(f, c): (&Arc<Field>, &ArrayRef)| {
        matches!(
            (f.data_type(), c.data_type()),
            (DataType::Utf8, DataType::Binary) | (DataType::LargeUtf8, DataType::LargeBinary)
        )
    };
    let schema = if schema.fields().iter().zip(&columns).any(stored_as_binary) {
        let fields = schema
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| {
                if stored_as_binary((f, c)) {
                    Arc::new(f.as_ref().clone().with_data_type(c.data_type().clone()))
                } else {
                    f.clone()
                }
            })
            .collect::<Vec<_>>();
        Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
    } else {
        schema.clone()
    };
    RecordBatch::try_new_with_options(
        schema,
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| Error::SchemaMismatch(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{BinaryArray, Int64Array, LargeBinaryArray, StringArray};

    fn schema() -> SchemaRef {
        Arc::new(Schema::new(vec![
            Field::new("k", DataType::Int64, false),
            Field::new("s", DataType::Utf8, true),
        ]))
    }

    #[test]
    fn utf8_bytes_become_strings() {
        let bytes: ArrayRef = Arc::new(BinaryArray::from(vec![
            Some("é".as_bytes()),
            None,
            Some(b"".as_ref()),
        ]));
        // A binary field's bytes stay binary, UTF-8 or not.
        assert_eq!(
            utf8_or_binary(bytes.clone(), &DataType::Binary).data_type(),
            &DataType::Binary
        );
        let strings = utf8_or_binary(bytes, &DataType::Utf8);
        assert_eq!(strings.data_type(), &DataType::Utf8);
        let strings = strings.as_string::<i32>();
        assert_eq!(strings.value(0), "é");
        assert!(strings.is_null(1));
        let large: ArrayRef = Arc::new(LargeBinaryArray::from(vec![Some(b"ab".as_ref())]));
        assert_eq!(
            utf8_or_binary(large, &DataType::LargeUtf8).data_type(),
            &DataType::LargeUtf8
        );
    }

    #[test]
    fn other_bytes_stay_binary() {
        // 0xFF never occurs in UTF-8; a split multibyte char is not UTF-8 either.
        for bad in [&[0xFFu8, b'A'][..], &"é".as_bytes()[..1]] {
            let bytes: ArrayRef =
                Arc::new(BinaryArray::from(vec![Some(b"ok".as_ref()), Some(bad)]));
            let kept = utf8_or_binary(bytes.clone(), &DataType::Utf8);
            assert_eq!(kept.data_type(), &DataType::Binary);
            assert_eq!(kept.as_binary::<i32>().value(1), bad);
        }
    }

    #[test]
    fn batch_schema_says_binary_only_for_columns_stored_so() {
        let keys: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let valid: ArrayRef = Arc::new(StringArray::from(vec!["a", "b"]));
        let batch = batch_of(&schema(), vec![keys.clone(), valid], 2).expect("valid");
        assert!(Arc::ptr_eq(&batch.schema(), &schema()) || batch.schema() == schema());

        let raw: ArrayRef = Arc::new(BinaryArray::from(vec![Some(&[0xC3u8][..]), None]));
        let batch = batch_of(&schema(), vec![keys.clone(), raw], 2).expect("valid");
        assert_eq!(batch.schema().field(0), schema().field(0));
        assert_eq!(batch.schema().field(1).data_type(), &DataType::Binary);
        assert_eq!(batch.schema().field(1).name(), "s");
        assert!(batch.schema().field(1).is_nullable());

        // Binary where the schema wants another type is still a mismatch.
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let wrong = batch_of(&schema(), vec![keys, ints], 2);
        assert!(matches!(wrong, Err(Error::SchemaMismatch(_))), "{wrong:?}");
    }
}
